-- PL-001 SELECT by primary key
SELECT id, email, name FROM customers WHERE id = 1;
-- PL-002 WHERE on a numeric comparison, ORDER BY primary key
SELECT id, title, price FROM products WHERE price > 5 ORDER BY id;
-- PL-003 WHERE on an exact-case string
SELECT id, name FROM customers WHERE name = 'Alice';
-- PL-004 WHERE on an exact-case CHAR column, ORDER BY primary key
SELECT id, name, country FROM customers WHERE country = 'FR' ORDER BY id;
-- PL-005 inner JOIN with a string filter
SELECT o.id, c.name, o.total FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'pending' ORDER BY o.id;
-- PL-006 LEFT JOIN
SELECT c.id, c.name, o.id AS order_id FROM customers c LEFT JOIN orders o ON o.customer_id = c.id ORDER BY c.id, o.id;
-- PL-007 three-table JOIN
SELECT oi.order_id, p.title, oi.qty FROM order_items oi JOIN products p ON p.id = oi.product_id JOIN orders o ON o.id = oi.order_id WHERE o.customer_id = 7 ORDER BY oi.order_id, oi.product_id;
-- PL-008 GROUP BY with COUNT
SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id ORDER BY customer_id;
-- PL-009 GROUP BY with SUM on an integer column
SELECT order_id, SUM(qty) AS units FROM order_items GROUP BY order_id ORDER BY order_id;
-- PL-010 GROUP BY on a joined column with every non-aggregated column listed
SELECT c.id, c.name, COUNT(o.id) AS n_orders FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.id, c.name ORDER BY c.id;
-- PL-011 COUNT, SUM, MIN, MAX on integer columns
SELECT COUNT(*), SUM(qty), MIN(qty), MAX(qty) FROM order_items;
-- PL-012 AVG on an integer column, rounded
SELECT ROUND(AVG(hits), 2) AS avg_hits FROM kv;
-- PL-013 AVG on an integer column inside a subquery comparison
SELECT order_id, product_id, qty FROM order_items WHERE qty > (SELECT AVG(qty) FROM order_items) ORDER BY order_id, product_id;
-- PL-014 HAVING
SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id HAVING COUNT(*) > 1 ORDER BY customer_id;
-- PL-015 searched CASE expression
SELECT id, CASE WHEN stock = 0 THEN 'out' WHEN stock < 10 THEN 'low' ELSE 'ok' END AS stock_level FROM products ORDER BY id;
-- PL-016 simple CASE expression
SELECT id, CASE customer_id WHEN 1 THEN 'first' WHEN 7 THEN 'regular' ELSE 'other' END AS who FROM orders ORDER BY id;
-- PL-017 IN list of numbers
SELECT id, title FROM products WHERE id IN (1, 3, 5) ORDER BY id;
-- PL-018 BETWEEN on numbers
SELECT id, total FROM orders WHERE total BETWEEN 5 AND 40 ORDER BY id;
-- PL-019 BETWEEN on a DATETIME column with full literals
SELECT id, name FROM customers WHERE created_at BETWEEN '2024-02-01 00:00:00' AND '2024-04-30 23:59:59' ORDER BY id;
-- PL-020 BETWEEN on a DATETIME(6) column with full literals
SELECT id, customer_id FROM orders WHERE placed_at BETWEEN '2024-05-02 00:00:00' AND '2024-05-05 00:00:00' ORDER BY id;
-- PL-021 IS NULL
SELECT id FROM orders WHERE shipped_on IS NULL ORDER BY id;
-- PL-022 IN subquery
SELECT id, name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE total > 20) ORDER BY id;
-- PL-023 EXISTS
SELECT p.id, p.title FROM products p WHERE EXISTS (SELECT 1 FROM order_items oi WHERE oi.product_id = p.id) ORDER BY p.id;
-- PL-024 NOT EXISTS
SELECT c.id, c.email FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id) ORDER BY c.id;
-- PL-025 scalar subquery in the select list
SELECT c.id, (SELECT COUNT(*) FROM orders o WHERE o.customer_id = c.id) AS n_orders FROM customers c ORDER BY c.id;
-- PL-026 UNION ALL with ORDER BY
SELECT id, 'customer' AS kind FROM customers WHERE id <= 2 UNION ALL SELECT id, 'product' AS kind FROM products WHERE id <= 2 ORDER BY id, kind;
-- PL-027 window function ROW_NUMBER() OVER (ORDER BY id)
SELECT id, title, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM products ORDER BY id;
-- PL-028 DISTINCT
SELECT DISTINCT customer_id FROM orders ORDER BY customer_id;
-- PL-029 arithmetic on integer and decimal columns
SELECT order_id, product_id, qty * unit_price AS line_total FROM order_items WHERE order_id = 5 ORDER BY product_id;
-- PL-030 LIMIT ... OFFSET
SELECT id, title FROM products ORDER BY id LIMIT 2 OFFSET 1;
-- PL-031 INSERT with explicit columns
INSERT INTO kv (k, v, hits) VALUES ('zeta', 'six', 6);
-- PL-032 multi-row INSERT with explicit columns
INSERT INTO order_items (order_id, product_id, qty, unit_price) VALUES (6, 3, 2, 9.90), (6, 6, 10, 1.20);
-- PL-033 INSERT with explicit columns into a table with a foreign key
INSERT INTO orders (id, customer_id, status, total, placed_at, shipped_on, note) VALUES (9, 2, 'pending', 12.50, '2024-06-01 09:00:00', NULL, '');
-- PL-034 INSERT ... SELECT with explicit columns
INSERT INTO kv (k, v, hits) SELECT sku, title, stock FROM products WHERE id = 3;
-- PL-035 UPDATE by primary key
UPDATE kv SET hits = hits + 1 WHERE k = 'alpha';
-- PL-036 UPDATE several columns by primary key
UPDATE products SET stock = 10, price = 3.99 WHERE id = 2;
-- PL-037 DELETE by composite primary key
DELETE FROM order_items WHERE order_id = 1 AND product_id = 1;
-- PL-038 DELETE by primary key
DELETE FROM kv WHERE k = 'gamma';
