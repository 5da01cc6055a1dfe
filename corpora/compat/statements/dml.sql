-- DML-001 LIMIT offset, count
SELECT id, name FROM customers ORDER BY id LIMIT 2, 3;
-- DML-002 LIMIT count OFFSET offset
SELECT id, email FROM customers ORDER BY id LIMIT 3 OFFSET 2;
-- DML-003 LIMIT without ORDER BY (relies on the clustered primary-key scan order)
SELECT id, status FROM orders LIMIT 3;
-- DML-004 INSERT ... ON DUPLICATE KEY UPDATE with VALUES(col), existing key
INSERT INTO kv (k, v, hits) VALUES ('alpha', 'uno', 5)
  ON DUPLICATE KEY UPDATE v = VALUES(v), hits = hits + VALUES(hits);
-- DML-005 INSERT ... ON DUPLICATE KEY UPDATE without VALUES(), existing key
INSERT INTO kv (k, v, hits) VALUES ('Beta', 'zwei', 1) ON DUPLICATE KEY UPDATE hits = hits + 1;
-- DML-006 INSERT ... ON DUPLICATE KEY UPDATE on a table with two unique keys (row matched by PRIMARY KEY)
INSERT INTO customers (id, email, name, code, created_at) VALUES (1, 'alice@example.com', 'Alice B.', 'A001', '2024-06-01 00:00:00')
  ON DUPLICATE KEY UPDATE name = VALUES(name), balance = balance + 10;
-- DML-007 REPLACE INTO, existing key (row deleted and re-inserted; hits back to its default)
REPLACE INTO kv (k, v) VALUES ('alpha', 'uno');
-- DML-008 REPLACE INTO, new key
REPLACE INTO kv (k, v, hits) VALUES ('eta', 'seven', 7);
-- DML-009 INSERT IGNORE, duplicate key (row skipped with a warning)
INSERT IGNORE INTO kv (k, v, hits) VALUES ('alpha', 'dup', 9);
-- DML-010 INSERT IGNORE, non-duplicate key
INSERT IGNORE INTO kv (k, v, hits) VALUES ('theta', 'eight', 8);
-- DML-011 INSERT IGNORE turning a too-long value into a truncation warning
INSERT IGNORE INTO kv (k, v) VALUES (REPEAT('x', 60), 'key longer than VARCHAR(50)');
-- DML-012 INSERT ... SET
INSERT INTO kv SET k = 'lambda', v = 'eleven', hits = 11;
-- DML-013 INSERT with multiple rows
INSERT INTO kv (k, v, hits) VALUES ('mu', 'twelve', 12), ('nu', 'thirteen', 13), ('xi', NULL, 14);
-- DML-014 INSERT ... SELECT
INSERT INTO kv (k, v, hits) SELECT CONCAT('customer-', id), email, 0 FROM customers WHERE id <= 3;
-- DML-015 UPDATE ... ORDER BY ... LIMIT
UPDATE orders SET note = 'oldest pending' WHERE status = 'pending' ORDER BY placed_at LIMIT 1;
-- DML-016 DELETE ... ORDER BY ... LIMIT
DELETE FROM order_items WHERE qty = 1 ORDER BY order_id DESC, product_id DESC LIMIT 2;
-- DML-017 multi-table UPDATE with JOIN
UPDATE orders o JOIN customers c ON c.id = o.customer_id SET o.note = 'enterprise customer' WHERE c.tier = 'enterprise';
-- DML-018 multi-table UPDATE writing columns of both tables
UPDATE orders o JOIN customers c ON c.id = o.customer_id
  SET o.note = CONCAT('was ', o.status), c.balance = c.balance - o.total
  WHERE o.status = 'pending';
-- DML-019 multi-table DELETE (DELETE alias FROM ... JOIN)
DELETE oi FROM order_items oi JOIN orders o ON o.id = oi.order_id WHERE o.status = 'pending';
-- DML-020 DELETE FROM ... USING (MySQL form, target listed again in USING)
DELETE FROM oi USING order_items AS oi JOIN orders AS o ON o.id = oi.order_id WHERE o.customer_id = 7;
-- DML-021 DELETE FROM ... USING with a comma join
DELETE FROM order_items USING order_items, products
  WHERE products.id = order_items.product_id AND products.category = 'books';
-- DML-022 index hint USE INDEX
SELECT id, status FROM orders USE INDEX (idx_customer) WHERE customer_id = 7 ORDER BY id;
-- DML-023 index hint FORCE INDEX (PRIMARY)
SELECT id, total FROM orders FORCE INDEX (PRIMARY) WHERE id BETWEEN 2 AND 4 ORDER BY id;
-- DML-024 index hint IGNORE INDEX
SELECT id, name FROM customers IGNORE INDEX (idx_name) WHERE id > 5 ORDER BY id;
-- DML-025 STRAIGHT_JOIN select modifier
SELECT STRAIGHT_JOIN c.name, o.total FROM customers c JOIN orders o ON o.customer_id = c.id ORDER BY o.id;
-- DML-026 SQL_CALC_FOUND_ROWS
SELECT SQL_CALC_FOUND_ROWS id, status FROM orders ORDER BY id LIMIT 3;
-- DML-027 SQL_NO_CACHE modifier
SELECT SQL_NO_CACHE id, sku FROM products ORDER BY id;
-- DML-028 HIGH_PRIORITY modifier
SELECT HIGH_PRIORITY id, total FROM orders WHERE total > 20 ORDER BY id;
-- DML-029 SQL_SMALL_RESULT and SQL_BUFFER_RESULT modifiers with GROUP BY
SELECT SQL_SMALL_RESULT SQL_BUFFER_RESULT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id ORDER BY customer_id;
-- DML-030 GROUP BY ... WITH ROLLUP
SELECT customer_id, SUM(total) AS spent FROM orders GROUP BY customer_id WITH ROLLUP;
-- DML-031 GROUP BY with a non-aggregated column in the select list (ONLY_FULL_GROUP_BY off)
SELECT customer_id, status, SUM(total) AS spent FROM orders GROUP BY customer_id ORDER BY customer_id;
-- DML-032 GROUP BY the primary key with other columns of that table in the select list
SELECT c.id, c.name, c.email, COUNT(o.id) AS n FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.id ORDER BY c.id;
-- DML-033 GROUP BY an alias
SELECT customer_id AS cid, COUNT(*) AS n FROM orders GROUP BY cid ORDER BY cid;
-- DML-034 GROUP BY ... DESC (implicit sort of grouped output)
SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id DESC;
-- DML-035 HAVING on a select alias
SELECT customer_id, SUM(total) AS spent FROM orders GROUP BY customer_id HAVING spent > 20 ORDER BY customer_id;
-- DML-036 HAVING without GROUP BY on a non-aggregated column (acts like WHERE)
SELECT id, total FROM orders HAVING total > 20 ORDER BY id;
-- DML-037 ORDER BY column position
SELECT id, customer_id, total FROM orders ORDER BY 2 DESC, 1;
-- DML-038 SELECT ... LOCK IN SHARE MODE
SELECT k, hits FROM kv WHERE k = 'alpha' LOCK IN SHARE MODE;
-- DML-039 SELECT ... FOR UPDATE
SELECT id, balance FROM customers WHERE id = 2 FOR UPDATE;
-- DML-040 SELECT ... FOR UPDATE SKIP LOCKED
SELECT id FROM orders WHERE status = 'pending' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED;
-- DML-041 SELECT ... FROM DUAL
SELECT 1 + 1 AS two FROM DUAL;
-- DML-042 derived table with an alias
SELECT t.customer_id, t.spent FROM (SELECT customer_id, SUM(total) AS spent FROM orders GROUP BY customer_id) AS t
  ORDER BY t.customer_id;
-- DML-043 UNION with ORDER BY on column positions
SELECT id, name FROM customers WHERE id < 3
UNION
SELECT id, title FROM products WHERE id < 3
ORDER BY 1, 2;
-- DML-044 UNION ALL with ORDER BY on an output alias
SELECT customer_id AS cid FROM orders WHERE status = 'pending'
UNION ALL
SELECT id FROM customers WHERE country = 'FR'
ORDER BY cid;
-- DML-045 CTE (WITH ...)
WITH spent AS (SELECT customer_id, SUM(total) AS s FROM orders GROUP BY customer_id)
SELECT c.id, c.email, spent.s FROM customers c JOIN spent ON spent.customer_id = c.id ORDER BY c.id;
-- DML-046 window function ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...)
SELECT id, customer_id, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY placed_at) AS rn FROM orders ORDER BY id;
-- DML-047 EXISTS
SELECT id, email FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id) ORDER BY id;
-- DML-048 IN (subquery)
SELECT id, title FROM products WHERE id IN (SELECT product_id FROM order_items WHERE qty > 1) ORDER BY id;
-- DML-049 JOIN ... USING
SELECT o.id, customer_id, c.email FROM orders o JOIN (SELECT id AS customer_id, email FROM customers) AS c USING (customer_id)
  ORDER BY o.id;
-- DML-050 NATURAL JOIN
SELECT order_id, product_id, qty, status FROM order_items NATURAL JOIN (SELECT id AS order_id, status FROM orders) AS o
  ORDER BY order_id, product_id;
-- DML-051 LEFT JOIN ... WHERE right side IS NULL (anti-join)
SELECT c.id, c.email FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE o.id IS NULL ORDER BY c.id;
-- DML-052 SHOW TABLES
SHOW TABLES;
-- DML-053 SHOW COLUMNS FROM
SHOW COLUMNS FROM customers;
-- DML-054 DESCRIBE
DESCRIBE customers;
-- DML-055 SHOW CREATE TABLE
SHOW CREATE TABLE kv;
-- DML-056 SHOW VARIABLES LIKE
SHOW VARIABLES LIKE 'sql_mode';
-- DML-057 SHOW INDEX FROM
SHOW INDEX FROM orders;
-- DML-058 TRUNCATE TABLE
TRUNCATE TABLE kv;
-- DML-059 DELETE without WHERE
DELETE FROM kv;
-- DML-060 INSERT NULL into an AUTO_INCREMENT id to get a generated value
INSERT INTO customers (id, email, name, code, created_at) VALUES (NULL, 'ivan@example.com', 'Ivan', 'I009', '2024-06-01 09:00:00');
-- DML-061 INSERT 0 into an AUTO_INCREMENT id to get a generated value (NO_AUTO_VALUE_ON_ZERO off)
INSERT INTO customers (id, email, name, code, created_at) VALUES (0, 'judy@example.com', 'Judy', 'J010', '2024-06-02 09:00:00');
-- DML-062 INSERT NULL into a BIGINT UNSIGNED AUTO_INCREMENT id
INSERT INTO orders (id, customer_id, status, total, placed_at) VALUES (NULL, 6, 'pending', 12.00, '2024-06-03 10:00:00');
-- DML-063 GROUP BY without ORDER BY (relies on MySQL sorting grouped output)
SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id;
-- DML-064 AVG over an INT column (result scale)
SELECT AVG(qty) AS avg_qty FROM order_items;
-- DML-065 UPDATE that leaves the row unchanged (rows affected: changed rows on MySQL, matched rows on PostgreSQL)
UPDATE kv SET hits = 2 WHERE k = 'Beta';
-- DML-066 UPDATE a TINYINT(1) flag with an integer
UPDATE customers SET is_active = 0 WHERE id = 1;
-- DML-067 INSERT a boolean literal into a VARCHAR column
INSERT INTO kv (k, v) VALUES ('flag', TRUE);
-- DML-068 plain: SELECT with ORDER BY on the primary key
SELECT id, email, name FROM customers ORDER BY id;
-- DML-069 plain: inner join ordered by the primary key
SELECT o.id, c.email, o.total FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id;
-- DML-070 plain: aggregate with full GROUP BY
SELECT customer_id, COUNT(*) AS n, SUM(total) AS spent FROM orders GROUP BY customer_id ORDER BY customer_id;
-- DML-071 plain: join and aggregate grouped by every selected column
SELECT p.id, p.title, SUM(oi.qty) AS sold FROM products p JOIN order_items oi ON oi.product_id = p.id
  GROUP BY p.id, p.title ORDER BY p.id;
-- DML-072 plain: COUNT(*)
SELECT COUNT(*) FROM customers;
-- DML-073 plain: numeric range with BETWEEN
SELECT id, total FROM orders WHERE total BETWEEN 5 AND 40 ORDER BY id;
-- DML-074 plain: CASE expression
SELECT id, CASE WHEN total > 20 THEN 'big' ELSE 'small' END AS size FROM orders ORDER BY id;
-- DML-075 plain: IS NULL filter
SELECT id, sku FROM products WHERE category IS NULL ORDER BY id;
-- DML-076 plain: DISTINCT on an integer column
SELECT DISTINCT customer_id FROM orders ORDER BY customer_id;
-- DML-077 plain: INSERT ... VALUES with explicit columns
INSERT INTO products (id, sku, title, price, stock, category) VALUES (7, 'CUP-001', 'Cup', 6.50, 20, 'kitchen');
-- DML-078 plain: INSERT ... VALUES into a composite-key table
INSERT INTO order_items (order_id, product_id, qty, unit_price) VALUES (4, 3, 2, 9.90);
-- DML-079 plain: UPDATE with WHERE on the primary key
UPDATE products SET price = 5.49, stock = stock - 1 WHERE id = 1;
-- DML-080 plain: UPDATE a customer by primary key
UPDATE customers SET balance = balance + 10 WHERE id = 2;
-- DML-081 plain: DELETE with WHERE on the composite primary key
DELETE FROM order_items WHERE order_id = 5 AND product_id = 6;
-- DML-082 plain: DELETE with WHERE on the primary key
DELETE FROM products WHERE id = 6;
