-- DDL-001 AUTO_INCREMENT primary key column
CREATE TABLE t_autoinc (
  id INT NOT NULL AUTO_INCREMENT,
  name VARCHAR(50) NOT NULL,
  PRIMARY KEY (id)
);
-- DDL-002 table options ENGINE= DEFAULT CHARSET= COLLATE=
CREATE TABLE t_opts_charset (
  id INT NOT NULL,
  label VARCHAR(40) NOT NULL,
  PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
-- DDL-003 table option AUTO_INCREMENT=100
CREATE TABLE t_opts_autoinc (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  label VARCHAR(40) NOT NULL
) ENGINE=InnoDB AUTO_INCREMENT=100;
-- DDL-004 table option ROW_FORMAT=DYNAMIC
CREATE TABLE t_opts_rowformat (
  id INT NOT NULL PRIMARY KEY,
  payload VARCHAR(500) NULL
) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
-- DDL-005 table option COMMENT=
CREATE TABLE t_opts_comment (
  id INT NOT NULL PRIMARY KEY,
  label VARCHAR(40) NULL
) COMMENT='lookup labels';
-- DDL-006 column COMMENT
CREATE TABLE t_col_comment (
  id INT NOT NULL PRIMARY KEY COMMENT 'surrogate key',
  label VARCHAR(40) NOT NULL COMMENT 'shown in the UI'
);
-- DDL-007 mysqldump-style table: backticks, KEY, every table option
CREATE TABLE `t_dump_style` (
  `id` int(11) NOT NULL AUTO_INCREMENT,
  `customer_id` int(10) unsigned NOT NULL,
  `label` varchar(64) COLLATE utf8mb4_unicode_ci NOT NULL DEFAULT '',
  `created_at` datetime NOT NULL,
  PRIMARY KEY (`id`),
  KEY `idx_dump_customer` (`customer_id`)
) ENGINE=InnoDB AUTO_INCREMENT=42 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci ROW_FORMAT=DYNAMIC COMMENT='dumped';
-- DDL-008 inline KEY in CREATE TABLE
CREATE TABLE t_inline_key (
  id INT NOT NULL PRIMARY KEY,
  code VARCHAR(20) NOT NULL,
  KEY idx_inline_code (code)
);
-- DDL-009 inline INDEX in CREATE TABLE
CREATE TABLE t_inline_index (
  id INT NOT NULL PRIMARY KEY,
  code VARCHAR(20) NOT NULL,
  INDEX idx_inline_index_code (code)
);
-- DDL-010 inline UNIQUE KEY in CREATE TABLE
CREATE TABLE t_inline_unique (
  id INT NOT NULL PRIMARY KEY,
  email VARCHAR(100) NOT NULL,
  UNIQUE KEY uk_inline_email (email)
);
-- DDL-011 inline FULLTEXT KEY
CREATE TABLE t_fulltext (
  id INT NOT NULL PRIMARY KEY,
  body TEXT NOT NULL,
  FULLTEXT KEY ft_body (body)
) ENGINE=InnoDB;
-- DDL-012 inline SPATIAL KEY on a POINT column
CREATE TABLE t_spatial (
  id INT NOT NULL PRIMARY KEY,
  location POINT NOT NULL,
  SPATIAL KEY sp_location (location)
) ENGINE=InnoDB;
-- DDL-013 prefix index KEY (name(10))
CREATE TABLE t_prefix_index (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(200) NOT NULL,
  KEY idx_prefix_name (name(10))
);
-- DDL-014 USING BTREE after the column list
CREATE TABLE t_using_after (
  id INT NOT NULL PRIMARY KEY,
  code VARCHAR(20) NOT NULL,
  KEY idx_using_after (code) USING BTREE
);
-- DDL-015 USING BTREE before the column list
CREATE TABLE t_using_before (
  id INT NOT NULL PRIMARY KEY,
  code VARCHAR(20) NOT NULL,
  KEY idx_using_before USING BTREE (code)
);
-- DDL-016 ON UPDATE CURRENT_TIMESTAMP
CREATE TABLE t_on_update (
  id INT NOT NULL PRIMARY KEY,
  label VARCHAR(40) NULL,
  updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP
);
-- DDL-017 DEFAULT CURRENT_TIMESTAMP on a DATETIME column
CREATE TABLE t_default_now (
  id INT NOT NULL PRIMARY KEY,
  created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
-- DDL-018 DEFAULT CURRENT_TIMESTAMP on a TIMESTAMP NULL column
CREATE TABLE t_default_now_ts (
  id INT NOT NULL PRIMARY KEY,
  created_at TIMESTAMP NULL DEFAULT CURRENT_TIMESTAMP
);
-- DDL-019 generated column AS (...) VIRTUAL
CREATE TABLE t_gen_virtual (
  id INT NOT NULL PRIMARY KEY,
  price DECIMAL(10,2) NOT NULL,
  qty INT NOT NULL,
  line_total DECIMAL(12,2) AS (price * qty) VIRTUAL
);
-- DDL-020 generated column AS (...) STORED
CREATE TABLE t_gen_stored (
  id INT NOT NULL PRIMARY KEY,
  price DECIMAL(10,2) NOT NULL,
  qty INT NOT NULL,
  line_total DECIMAL(12,2) AS (price * qty) STORED
);
-- DDL-021 generated column GENERATED ALWAYS AS (...) STORED
CREATE TABLE t_gen_always_stored (
  id INT NOT NULL PRIMARY KEY,
  price DECIMAL(10,2) NOT NULL,
  qty INT NOT NULL,
  line_total DECIMAL(12,2) GENERATED ALWAYS AS (price * qty) STORED
);
-- DDL-022 generated column GENERATED ALWAYS AS (...) VIRTUAL
CREATE TABLE t_gen_always_virtual (
  id INT NOT NULL PRIMARY KEY,
  first_name VARCHAR(40) NOT NULL,
  last_name VARCHAR(40) NOT NULL,
  full_name VARCHAR(81) GENERATED ALWAYS AS (CONCAT(first_name, ' ', last_name)) VIRTUAL
);
-- DDL-023 PARTITION BY RANGE
CREATE TABLE t_part_range (
  id INT NOT NULL,
  sold_on DATE NOT NULL,
  amount DECIMAL(10,2) NOT NULL,
  PRIMARY KEY (id, sold_on)
)
PARTITION BY RANGE (YEAR(sold_on)) (
  PARTITION p2023 VALUES LESS THAN (2024),
  PARTITION p2024 VALUES LESS THAN (2025),
  PARTITION pmax VALUES LESS THAN MAXVALUE
);
-- DDL-024 PARTITION BY HASH
CREATE TABLE t_part_hash (
  id INT NOT NULL PRIMARY KEY,
  label VARCHAR(40) NULL
)
PARTITION BY HASH (id) PARTITIONS 4;
-- DDL-025 CREATE TABLE ... LIKE
CREATE TABLE t_customers_copy LIKE customers;
-- DDL-026 CREATE TABLE ... AS SELECT
CREATE TABLE t_big_orders AS SELECT id, customer_id, total FROM orders WHERE total > 10;
-- DDL-027 CREATE TEMPORARY TABLE
CREATE TEMPORARY TABLE t_tmp_totals (
  customer_id INT UNSIGNED NOT NULL PRIMARY KEY,
  total DECIMAL(12,2) NOT NULL
) ENGINE=InnoDB;
-- DDL-028 CREATE TABLE IF NOT EXISTS (new table) with a table option
CREATE TABLE IF NOT EXISTS t_if_not_exists (
  id INT NOT NULL PRIMARY KEY,
  label VARCHAR(40) NULL
) ENGINE=InnoDB;
-- DDL-029 CREATE TABLE IF NOT EXISTS on a table that already exists
CREATE TABLE IF NOT EXISTS kv (
  k VARCHAR(50) NOT NULL,
  v VARCHAR(200) NULL,
  PRIMARY KEY (k)
);
-- DDL-030 FOREIGN KEY ... ON DELETE CASCADE to an INT UNSIGNED parent key
CREATE TABLE t_fk_cascade (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  customer_id INT UNSIGNED NOT NULL,
  note VARCHAR(100) NULL,
  KEY idx_fk_customer (customer_id),
  CONSTRAINT fk_t_fk_cascade_customer FOREIGN KEY (customer_id) REFERENCES customers (id) ON DELETE CASCADE ON UPDATE CASCADE
) ENGINE=InnoDB;
-- DDL-031 CHECK constraints (column and table level)
CREATE TABLE t_check (
  id INT NOT NULL PRIMARY KEY,
  qty INT NOT NULL CHECK (qty > 0),
  discount DECIMAL(5,2) NOT NULL DEFAULT 0,
  CONSTRAINT ck_t_check_discount CHECK (discount >= 0 AND discount <= 100)
);
-- DDL-032 ALTER TABLE ADD COLUMN ... AFTER
ALTER TABLE customers ADD COLUMN nickname VARCHAR(30) NULL AFTER name;
-- DDL-033 ALTER TABLE ADD COLUMN ... FIRST
ALTER TABLE kv ADD COLUMN kv_id INT NOT NULL DEFAULT 0 FIRST;
-- DDL-034 ALTER TABLE ADD (several columns, no COLUMN keyword)
ALTER TABLE products ADD barcode VARCHAR(13) NULL, ADD discontinued TINYINT(1) NOT NULL DEFAULT 0;
-- DDL-035 ALTER TABLE MODIFY
ALTER TABLE customers MODIFY name VARCHAR(150) NOT NULL;
-- DDL-036 ALTER TABLE MODIFY COLUMN with a new default
ALTER TABLE kv MODIFY COLUMN hits BIGINT NOT NULL DEFAULT 1;
-- DDL-037 ALTER TABLE CHANGE (rename and retype)
ALTER TABLE customers CHANGE name full_name VARCHAR(120) NOT NULL;
-- DDL-038 ALTER TABLE CHANGE COLUMN (same name, new type)
ALTER TABLE orders CHANGE COLUMN note note VARCHAR(500) NOT NULL DEFAULT '';
-- DDL-039 ALTER TABLE RENAME COLUMN
ALTER TABLE kv RENAME COLUMN v TO val;
-- DDL-040 ALTER TABLE ADD INDEX
ALTER TABLE orders ADD INDEX idx_orders_status (status);
-- DDL-041 ALTER TABLE ADD KEY (composite)
ALTER TABLE orders ADD KEY idx_orders_cust_placed (customer_id, placed_at);
-- DDL-042 ALTER TABLE ADD UNIQUE KEY
ALTER TABLE customers ADD UNIQUE KEY uk_code (code);
-- DDL-043 ALTER TABLE ADD FULLTEXT INDEX
ALTER TABLE products ADD FULLTEXT INDEX ft_title (title);
-- DDL-044 ALTER TABLE DROP INDEX
ALTER TABLE customers DROP INDEX idx_name;
-- DDL-045 ALTER TABLE DROP KEY
ALTER TABLE products DROP KEY uk_sku;
-- DDL-046 ALTER TABLE DROP PRIMARY KEY, ADD PRIMARY KEY
ALTER TABLE order_items DROP PRIMARY KEY, ADD PRIMARY KEY (order_id, product_id, qty);
-- DDL-047 ALTER TABLE ADD CONSTRAINT FOREIGN KEY ... ON DELETE CASCADE
ALTER TABLE order_items ADD CONSTRAINT fk_items_order FOREIGN KEY (order_id) REFERENCES orders (id) ON DELETE CASCADE;
-- DDL-048 ALTER TABLE ENGINE=
ALTER TABLE kv ENGINE=InnoDB;
-- DDL-049 ALTER TABLE CONVERT TO CHARACTER SET
ALTER TABLE kv CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
-- DDL-050 ALTER TABLE AUTO_INCREMENT=
ALTER TABLE customers AUTO_INCREMENT=1000;
-- DDL-051 ALTER TABLE COMMENT=
ALTER TABLE products COMMENT='catalogue';
-- DDL-052 RENAME TABLE a TO b
RENAME TABLE kv TO kv_archive;
-- DDL-053 DROP INDEX idx ON t
DROP INDEX idx_name ON customers;
-- DDL-054 CREATE INDEX with a prefix length and USING BTREE
CREATE INDEX idx_title_prefix USING BTREE ON products (title(8));
-- DDL-055 CREATE DATABASE with DEFAULT CHARACTER SET
CREATE DATABASE t_db_charset DEFAULT CHARACTER SET utf8mb4;
-- DDL-056 CREATE DATABASE IF NOT EXISTS with CHARACTER SET and COLLATE
CREATE DATABASE IF NOT EXISTS t_db_if_not_exists DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
-- DDL-057 CREATE VIEW with ALGORITHM=
CREATE ALGORITHM=MERGE VIEW t_v_active AS SELECT id, email, name FROM customers WHERE is_active = 1;
-- DDL-058 CREATE VIEW with DEFINER=
CREATE DEFINER=CURRENT_USER VIEW t_v_definer AS SELECT id, title, price FROM products;
-- DDL-059 CREATE VIEW with SQL SECURITY INVOKER
CREATE SQL SECURITY INVOKER VIEW t_v_invoker AS SELECT id, status, total FROM orders;
-- DDL-060 CREATE VIEW as mysqldump writes it (ALGORITHM, DEFINER, SQL SECURITY)
CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `t_v_dump` AS select `orders`.`id` AS `id`,`orders`.`total` AS `total` from `orders`;
-- DDL-061 TRUNCATE without the TABLE keyword
TRUNCATE order_items;
-- DDL-062 plain: CREATE TABLE with standard types and constraints
CREATE TABLE t_plain (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL);
-- DDL-063 plain: CREATE TABLE with a foreign key ON DELETE CASCADE to an INT parent key
CREATE TABLE t_plain_fk (
  id INT NOT NULL PRIMARY KEY,
  product_id INT NOT NULL REFERENCES products (id) ON DELETE CASCADE,
  qty INT NOT NULL DEFAULT 1
);
-- DDL-064 plain: CREATE TABLE with CHAR, DECIMAL, DATE and a table-level UNIQUE constraint
CREATE TABLE t_plain_misc (
  id INT NOT NULL,
  code CHAR(4) NOT NULL,
  amount DECIMAL(10,2) NOT NULL DEFAULT 0,
  due DATE NULL,
  PRIMARY KEY (id),
  CONSTRAINT uk_t_plain_misc_code UNIQUE (code)
);
-- DDL-065 plain: CREATE INDEX
CREATE INDEX idx_orders_status_plain ON orders (status);
-- DDL-066 plain: CREATE UNIQUE INDEX
CREATE UNIQUE INDEX uk_products_title ON products (title);
-- DDL-067 plain: ALTER TABLE ADD COLUMN
ALTER TABLE kv ADD COLUMN x INT;
-- DDL-068 plain: ALTER TABLE DROP COLUMN
ALTER TABLE kv DROP COLUMN hits;
-- DDL-069 plain: ALTER TABLE ADD CONSTRAINT CHECK
ALTER TABLE kv ADD CONSTRAINT ck_kv_hits CHECK (hits >= 0);
-- DDL-070 plain: ALTER TABLE ALTER COLUMN SET DEFAULT
ALTER TABLE products ALTER COLUMN category SET DEFAULT 'misc';
-- DDL-071 plain: ALTER TABLE RENAME TO
ALTER TABLE kv RENAME TO kv_renamed;
-- DDL-072 plain: CREATE VIEW
CREATE VIEW t_v_plain AS SELECT id, customer_id, total FROM orders;
-- DDL-073 plain: CREATE OR REPLACE VIEW
CREATE OR REPLACE VIEW t_v_replace AS SELECT id, title FROM products WHERE price > 5;
-- DDL-074 plain: DROP TABLE IF EXISTS (table exists)
DROP TABLE IF EXISTS order_items;
-- DDL-075 plain: DROP TABLE IF EXISTS (table does not exist)
DROP TABLE IF EXISTS t_never_created;
-- DDL-076 plain: DROP TABLE
DROP TABLE kv;
-- DDL-077 plain: DROP VIEW IF EXISTS
DROP VIEW IF EXISTS t_v_never_created;
-- DDL-078 plain: TRUNCATE TABLE
TRUNCATE TABLE kv;
