-- CASE-001 equality on a _ci column, literal in a different case than stored ('Bob@Example.com')
SELECT id, email FROM customers WHERE email = 'bob@example.com';
-- CASE-002 equality differing in case and trailing space (stored 'Carol ')
SELECT id, name FROM customers WHERE name = 'carol';
-- CASE-003 equality differing only by a trailing space (PAD SPACE)
SELECT id, name FROM customers WHERE name = 'Carol';
-- CASE-004 trailing-space equality of two literals
SELECT 'Carol' = 'Carol ' AS pad_equal;
-- CASE-005 accent-insensitive equality (utf8mb4_general_ci folds 'È' to 'E')
SELECT id, name FROM customers WHERE name = 'eve';
-- CASE-006 trailing-space equality on a VARCHAR primary key (stored 'delta ')
SELECT k, v FROM kv WHERE k = 'delta';
-- CASE-007 ENUM compared with a differently cased label
SELECT id, tier FROM customers WHERE tier = 'PRO' ORDER BY id;
-- CASE-008 LIKE with a lower-case prefix
SELECT id, name FROM customers WHERE name LIKE 'a%' ORDER BY id;
-- CASE-009 LIKE with an upper-case suffix pattern
SELECT id, email FROM customers WHERE email LIKE '%@EXAMPLE.COM' ORDER BY id;
-- CASE-010 LIKE that is both case- and accent-insensitive ('café' LIKE '%CAFE%')
SELECT id, notes FROM customers WHERE notes LIKE '%CAFE%' ORDER BY id;
-- CASE-011 IN list whose members differ in case from the stored values
SELECT id, name FROM customers WHERE name IN ('alice', 'BOB', 'grace') ORDER BY id;
-- CASE-012 equality on status, stored as 'shipped' and 'Shipped'
SELECT id, status FROM orders WHERE status = 'shipped' ORDER BY id;
-- CASE-013 GROUP BY a column with case-differing values
SELECT status, COUNT(*) AS n FROM orders GROUP BY status ORDER BY status;
-- CASE-014 DISTINCT on a column with case-differing values
SELECT DISTINCT status FROM orders ORDER BY status;
-- CASE-015 COUNT(DISTINCT) on a column with case-differing values
SELECT COUNT(DISTINCT status) AS n FROM orders;
-- CASE-016 ORDER BY a mixed-case, accented name column
SELECT id, name FROM customers ORDER BY name, id;
-- CASE-017 MIN/MAX on a mixed-case, accented string column
SELECT MIN(name) AS first_name, MAX(name) AS last_name FROM customers;
-- CASE-018 range predicate on a mixed-case string column
SELECT id, name FROM customers WHERE name > 'Dave' ORDER BY id;
-- CASE-019 join on strings that differ only in case ('Beta' vs 'beta')
SELECT a.k AS k, b.k AS matched FROM kv a JOIN kv b ON a.k = LOWER(b.k) ORDER BY a.hits;
-- CASE-020 UNION deduplicating values that differ only in case
SELECT status FROM orders WHERE id = 1 UNION SELECT status FROM orders WHERE id = 8 ORDER BY 1;
-- CASE-021 insert guarded by a NOT EXISTS check that matches case-insensitively
INSERT INTO kv (k, v) SELECT 'ALPHA', 'x' WHERE NOT EXISTS (SELECT 1 FROM kv WHERE k = 'ALPHA');
-- CASE-022 INSERT ... ON DUPLICATE KEY UPDATE where the key collides only case-insensitively
INSERT INTO kv (k, v) VALUES ('ALPHA', 'x') ON DUPLICATE KEY UPDATE hits = hits + 1;
-- CASE-023 UPDATE selecting rows by a differently cased key
UPDATE kv SET hits = hits + 1 WHERE k = 'BETA';
-- CASE-024 COLLATE utf8mb4_bin to force a case-sensitive comparison
SELECT id, email FROM customers WHERE email COLLATE utf8mb4_bin = 'bob@example.com';
-- CASE-025 BINARY operator to force a case-sensitive comparison
SELECT id, name FROM customers WHERE name = BINARY 'bob';
-- CASE-026 utf8mb4_bin column (products.sku) compared in the wrong case: no match on either
SELECT id, sku FROM products WHERE sku = 'tea-001';
-- CASE-027 utf8mb4_bin column with LIKE: case-sensitive on both
SELECT id, sku FROM products WHERE sku LIKE 'TEA%' ORDER BY id;
-- CASE-028 ORDER BY a utf8mb4_bin column: byte order on both
SELECT id, sku FROM products ORDER BY sku;
-- CASE-029 utf8mb4_bin is still PAD SPACE: trailing space ignored on MySQL only
SELECT id, sku FROM products WHERE sku = 'TEA-001 ';
-- CASE-030 column names in a different case than declared
SELECT ID, Email FROM customers WHERE Id = 1;
-- CASE-031 mixed-case table name written as declared but unquoted
SELECT EventName FROM AuditTrail ORDER BY Id;
-- CASE-032 backtick-quoted mixed-case table, column name in lower case
SELECT eventname FROM `AuditTrail` ORDER BY id;
-- CASE-033 double-quoted mixed-case name (a string literal on MySQL without ANSI_QUOTES)
SELECT "EventName" FROM AuditTrail ORDER BY Id;
-- CASE-034 case does not matter: exact-case match on a unique key
SELECT id, email FROM customers WHERE email = 'alice@example.com';
-- CASE-035 case does not matter: exact-case match on the kv primary key
SELECT k, v, hits FROM kv WHERE k = 'Beta';
-- CASE-036 case does not matter: exact match including the trailing space
SELECT id FROM customers WHERE name = 'Carol ';
-- CASE-037 case does not matter: exact-case match on a utf8mb4_bin unique key
SELECT id, title FROM products WHERE sku = 'TEA-001';
-- CASE-038 case does not matter: IN list of values stored in a single case
SELECT id, status FROM orders WHERE status IN ('pending', 'cancelled') ORDER BY id;
-- CASE-039 case does not matter: numeric comparison
SELECT id, name FROM customers WHERE id BETWEEN 2 AND 4 ORDER BY id;
-- CASE-040 case does not matter: explicit LOWER() on both sides
SELECT id, email FROM customers WHERE LOWER(email) = 'bob@example.com';
-- CASE-041 case does not matter: grouping on UPPER() of the column
SELECT UPPER(status) AS s, COUNT(*) AS n FROM orders GROUP BY UPPER(status) ORDER BY s;
-- CASE-042 case does not matter: mixed-case table alias used consistently
SELECT O.id, O.total FROM orders AS O WHERE O.total > 50;
