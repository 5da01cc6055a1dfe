-- SEM-001 integer division of two integer literals
SELECT 7/2 AS q;
-- SEM-002 integer division of an INT column
SELECT order_id, product_id, qty, qty/2 AS half FROM order_items ORDER BY order_id, product_id;
-- SEM-003 division by a literal zero
SELECT 1/0 AS r;
-- SEM-004 division of a DECIMAL column by zero
SELECT id, balance/0 AS r FROM customers ORDER BY id;
-- SEM-005 MOD() by zero
SELECT MOD(5, 0) AS r;
-- SEM-006 modulo of a negative number (sign follows the dividend on both)
SELECT -7 % 3 AS a, MOD(-7, 3) AS b;
-- SEM-007 INT overflow in integer arithmetic
SELECT 2147483647 + 1 AS n;
-- SEM-008 integer column compared to a quoted number
SELECT id, name FROM customers WHERE id = '1';
-- SEM-009 integer column compared to a string with trailing garbage
SELECT k, hits FROM kv WHERE hits = '2abc';
-- SEM-010 varchar column compared to integer 0 (every non-numeric string converts to 0)
SELECT id, name FROM customers WHERE name = 0 ORDER BY id;
-- SEM-011 CHAR column compared to an integer
SELECT id, code FROM customers WHERE code = 1 ORDER BY id;
-- SEM-012 string with trailing garbage in arithmetic
SELECT '1abc' + 1 AS n;
-- SEM-013 arithmetic on two string literals
SELECT '3' * '4' AS n;
-- SEM-014 SUM over a varchar column
SELECT SUM(note) AS s FROM orders;
-- SEM-015 enum column compared to an integer (matches the enum index)
SELECT id, tier FROM customers WHERE tier = 2 ORDER BY id;
-- SEM-016 enum column compared to a string with < / > (string order on MySQL, declaration order on PostgreSQL)
SELECT id, tier FROM customers WHERE tier > 'free' ORDER BY id;
-- SEM-017 '' is not NULL: empty-string filter
SELECT id, note FROM orders WHERE note = '' ORDER BY id;
-- SEM-018 IS NULL on a nullable TEXT column holding both NULL and ''
SELECT id, notes FROM customers WHERE notes IS NULL ORDER BY id;
-- SEM-019 COUNT(col) skips NULL but counts ''
SELECT COUNT(notes) AS with_notes, COUNT(*) AS total FROM customers;
-- SEM-020 CONCAT with a NULL argument
SELECT id, CONCAT(name, ': ', notes) AS label FROM customers ORDER BY id;
-- SEM-021 GREATEST with a NULL argument
SELECT id, GREATEST(score, rating) AS g FROM customers ORDER BY id;
-- SEM-022 || between a string and a number (logical OR unless PIPES_AS_CONCAT)
SELECT id, 'order-' || id AS label FROM orders ORDER BY id;
-- SEM-023 NULL ordering, ascending on a CHAR column
SELECT id, country FROM customers ORDER BY country, id;
-- SEM-024 NULL ordering, descending on a DATE column
SELECT id, shipped_on FROM orders ORDER BY shipped_on DESC, id;
-- SEM-025 NULL ordering with LIMIT (which rows make the page)
SELECT id, score FROM customers ORDER BY score LIMIT 3;
-- SEM-026 ORDER BY a non-unique column with LIMIT (ties broken arbitrarily)
SELECT order_id, product_id, qty FROM order_items ORDER BY qty DESC LIMIT 3;
-- SEM-027 TINYINT(1) flag compared with an integer
SELECT id, name FROM customers WHERE is_active = 1 ORDER BY id;
-- SEM-028 SUM over a TINYINT(1) flag
SELECT SUM(is_active) AS active FROM customers;
-- SEM-029 arithmetic on a TINYINT(1) flag
SELECT id, is_active + 0 AS flag FROM customers ORDER BY id;
-- SEM-030 flag used as a bare predicate
SELECT id FROM customers WHERE NOT is_active ORDER BY id;
-- SEM-031 comparison result in the select list
SELECT id, total > 20 AS big FROM orders ORDER BY id;
-- SEM-032 IS TRUE on an integer column
SELECT k, hits IS TRUE AS nonzero FROM kv WHERE hits IS TRUE ORDER BY hits;
-- SEM-033 datetime literal with hour 24
SELECT id FROM customers WHERE created_at < '2024-05-01 24:00:00' ORDER BY id;
-- SEM-034 zero date literal compared to a DATE column
SELECT id, shipped_on FROM orders WHERE shipped_on > '0000-00-00' ORDER BY id;
-- SEM-035 invalid calendar date literal (February 30)
SELECT id FROM orders WHERE placed_at < '2024-02-30' ORDER BY id;
-- SEM-036 date literal without zero padding
SELECT id FROM orders WHERE placed_at < '2024-5-2' ORDER BY id;
-- SEM-037 date literal in compact YYYYMMDD form
SELECT id FROM orders WHERE placed_at < '20240502' ORDER BY id;
-- SEM-038 DATETIME(6) column compared to a date-only string
SELECT id, placed_at FROM orders WHERE placed_at > '2024-05-03' ORDER BY id;
-- SEM-039 date column plus an integer (number on MySQL, date on PostgreSQL)
SELECT id, shipped_on + 1 AS next_day FROM orders WHERE shipped_on IS NOT NULL ORDER BY id;
-- SEM-040 CONVERT_TZ
SELECT CONVERT_TZ('2024-05-01 12:00:00', '+00:00', '+02:00') AS local_time;
-- SEM-041 TIMESTAMP column compared with a naive literal (read in the session time zone)
SELECT id, updated_at FROM customers WHERE updated_at >= '2024-04-01 00:00:00' ORDER BY id;
-- SEM-042 DECIMAL column compared with a FLOAT column
SELECT id, balance, rating FROM customers WHERE balance > rating ORDER BY id;
-- SEM-043 FLOAT column equality with a decimal literal
SELECT id, rating FROM customers WHERE rating = 0.1;
-- SEM-044 DOUBLE column equality with a decimal literal
SELECT id, score FROM customers WHERE score = 0.1;
-- SEM-045 LIKE on an integer column
SELECT id FROM customers WHERE id LIKE '1%' ORDER BY id;
-- SEM-046 CONCAT of a number
SELECT id, CONCAT('order-', id, ': ', total) AS label FROM orders ORDER BY id;
-- SEM-047 BETWEEN on strings
SELECT id, name FROM customers WHERE name BETWEEN 'a' AND 'd' ORDER BY id;
-- SEM-048 LENGTH of a non-ASCII string (bytes on MySQL, characters on PostgreSQL)
SELECT id, name, LENGTH(name) AS len FROM customers ORDER BY id;
-- SEM-049 single-table UPDATE assignments see earlier assignments in the same SET
UPDATE kv SET hits = hits + 1, v = hits WHERE k = 'alpha';
-- SEM-050 CHAR(n) value read back (trailing pad spaces)
SELECT id, code, CONCAT('[', code, ']') AS bracketed FROM customers ORDER BY id;
