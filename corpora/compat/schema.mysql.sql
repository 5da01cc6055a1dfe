-- The compat corpus schema, MySQL/MariaDB side. Every statement of the corpus runs against it.
-- Columns cover the types and collations the audit has rules for; data.sql fills it.
CREATE TABLE customers (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT,
  email VARCHAR(100) NOT NULL,
  name VARCHAR(100) NOT NULL,
  code CHAR(8) NOT NULL,
  country CHAR(2) NULL,
  is_active TINYINT(1) NOT NULL DEFAULT 1,
  tier ENUM('free','pro','enterprise') NOT NULL DEFAULT 'free',
  tags SET('new','vip','churned') NULL,
  birth_year YEAR NULL,
  balance DECIMAL(10,2) NOT NULL DEFAULT 0.00,
  score DOUBLE NULL,
  rating FLOAT NULL,
  notes TEXT NULL,
  avatar BLOB NULL,
  profile JSON NULL,
  created_at DATETIME NOT NULL,
  updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  PRIMARY KEY (id),
  UNIQUE KEY uk_email (email),
  KEY idx_name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;

CREATE TABLE products (
  id INT NOT NULL,
  sku VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  title VARCHAR(200) NOT NULL,
  price DECIMAL(10,2) NOT NULL,
  stock SMALLINT UNSIGNED NOT NULL DEFAULT 0,
  weight_kg DECIMAL(6,3) NULL,
  flags BIT(8) NOT NULL DEFAULT b'0',
  category VARCHAR(30) NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uk_sku (sku)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;

CREATE TABLE orders (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  customer_id INT UNSIGNED NOT NULL,
  status VARCHAR(20) NOT NULL,
  total DECIMAL(12,2) NOT NULL,
  placed_at DATETIME(6) NOT NULL,
  shipped_on DATE NULL,
  note VARCHAR(255) NOT NULL DEFAULT '',
  PRIMARY KEY (id),
  KEY idx_customer (customer_id),
  CONSTRAINT fk_orders_customer FOREIGN KEY (customer_id) REFERENCES customers (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;

CREATE TABLE order_items (
  order_id BIGINT UNSIGNED NOT NULL,
  product_id INT NOT NULL,
  qty INT NOT NULL,
  unit_price DECIMAL(10,2) NOT NULL,
  PRIMARY KEY (order_id, product_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;

CREATE TABLE kv (
  k VARCHAR(50) NOT NULL,
  v VARCHAR(200) NULL,
  hits INT NOT NULL DEFAULT 0,
  PRIMARY KEY (k)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;

CREATE TABLE `AuditTrail` (
  `Id` INT NOT NULL,
  `EventName` VARCHAR(50) NOT NULL,
  `At` DATETIME NOT NULL,
  PRIMARY KEY (`Id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;

INSERT INTO `AuditTrail` (`Id`, `EventName`, `At`) VALUES (1, 'login', '2024-05-01 10:00:00'), (2, 'logout', '2024-05-01 11:00:00');
