-- FN-001 IFNULL on a nullable CHAR column and IF on a TINYINT(1) flag
SELECT id, IFNULL(country, '??') AS country, IF(is_active, 'yes', 'no') AS active FROM customers ORDER BY id;

-- FN-001 NULLIF turning empty notes into NULL (standard)
SELECT id, NULLIF(notes, '') AS notes FROM customers ORDER BY id;

-- FN-001 NULLIF compared under a case-insensitive collation ('DE' = 'de' in MySQL only)
SELECT id, NULLIF(country, 'de') AS country FROM customers ORDER BY id;

-- FN-001 COALESCE over two floating-point columns and a constant (standard)
SELECT id, COALESCE(score, rating, 0) AS s FROM customers ORDER BY id;

-- FN-001 COALESCE mixing a YEAR column and a string (MySQL converts, PostgreSQL does not)
SELECT id, COALESCE(birth_year, 'unknown') AS born FROM customers ORDER BY id;

-- FN-001 IF in UPDATE SET
UPDATE products SET stock = IF(stock = 0, 10, stock) WHERE category = 'drinks';

-- FN-002 CONCAT with a NULL argument (NULL in MySQL, NULL skipped in PostgreSQL)
SELECT id, CONCAT(name, ' (', country, ')') AS label FROM customers ORDER BY id;

-- FN-002 CONCAT with DECIMAL arguments
SELECT id, CONCAT(title, ': ', price, ' EUR') AS line FROM products ORDER BY id;

-- FN-002 CONCAT with a TINYINT(1) flag (a BOOLEAN after migration)
SELECT id, CONCAT(email, ' active=', is_active) AS s FROM customers ORDER BY id;

-- FN-002 CONCAT with a DATETIME(6) column (six fractional digits in MySQL text)
SELECT id, CONCAT('placed ', placed_at) AS s FROM orders ORDER BY id;

-- FN-002 CONCAT with a TIMESTAMP column (TIMESTAMPTZ after migration)
SELECT id, CONCAT('updated ', updated_at) AS s FROM customers ORDER BY id;

-- FN-002 CONCAT with a NULL argument in the WHERE of an UPDATE
UPDATE kv SET hits = hits + 1 WHERE CONCAT(k, '=', v) IS NULL;

-- FN-003 CONCAT_WS skipping NULLs
SELECT id, CONCAT_WS(', ', name, country, notes) AS s FROM customers ORDER BY id;

-- FN-004 GROUP_CONCAT with ORDER BY and SEPARATOR
SELECT customer_id, GROUP_CONCAT(id ORDER BY id SEPARATOR ';') AS order_ids FROM orders GROUP BY customer_id ORDER BY customer_id;

-- FN-004 GROUP_CONCAT DISTINCT with ORDER BY
SELECT GROUP_CONCAT(DISTINCT category ORDER BY category) AS categories FROM products;

-- FN-005 DATE_FORMAT with %i minutes, and with month and weekday names
SELECT id, DATE_FORMAT(placed_at, '%Y-%m-%d %H:%i') AS placed, DATE_FORMAT(placed_at, '%d %M %Y, %W') AS long_form FROM orders ORDER BY id;

-- FN-006 STR_TO_DATE with a day-first format
SELECT STR_TO_DATE('03/05/2024 14:30', '%d/%m/%Y %H:%i') AS d;

-- FN-011 UNIX_TIMESTAMP of a DATETIME column and FROM_UNIXTIME back
SELECT id, UNIX_TIMESTAMP(created_at) AS epoch, FROM_UNIXTIME(UNIX_TIMESTAMP(created_at)) AS back FROM customers ORDER BY id;

-- FN-007 DATE_ADD with INTERVAL n DAY on a DATETIME(6)
SELECT id, DATE_ADD(placed_at, INTERVAL 3 DAY) AS due FROM orders ORDER BY id;

-- FN-007 DATE_SUB with INTERVAL n MONTH and ADDDATE with a day count, on a DATE column
SELECT id, DATE_SUB(shipped_on, INTERVAL 1 MONTH) AS month_before, ADDDATE(shipped_on, 7) AS week_after FROM orders WHERE shipped_on IS NOT NULL ORDER BY id;

-- FN-007 plain date + INTERVAL 1 DAY (unquoted number)
SELECT id, shipped_on + INTERVAL 1 DAY AS next_day FROM orders WHERE shipped_on IS NOT NULL ORDER BY id;

-- FN-007 date + INTERVAL '1' DAY (quoted: a DATE in MySQL, a TIMESTAMP in PostgreSQL)
SELECT id, shipped_on + INTERVAL '1' DAY AS next_day FROM orders WHERE shipped_on IS NOT NULL ORDER BY id;

-- FN-010 CURDATE and CURTIME (non-deterministic)
SELECT CURDATE() AS today, CURTIME() AS now_time;

-- FN-009 NOW() (non-deterministic)
SELECT NOW() AS ts;

-- FN-009 NOW() compared with a column (deterministic result)
SELECT COUNT(*) AS n FROM orders WHERE placed_at < NOW();

-- FN-009 FN-021 SYSDATE, UTC_TIMESTAMP and UUID (non-deterministic)
SELECT SYSDATE() AS sys_ts, UTC_TIMESTAMP() AS utc_ts, UUID() AS u;

-- FN-008 DATEDIFF and TIMESTAMPDIFF between a DATE and a DATETIME(6)
SELECT id, DATEDIFF(shipped_on, placed_at) AS days, TIMESTAMPDIFF(HOUR, placed_at, shipped_on) AS hours FROM orders WHERE shipped_on IS NOT NULL ORDER BY id;

-- FN-014 YEAR, MONTH, DAY, HOUR, DAYOFWEEK (1 = Sunday), WEEKDAY (0 = Monday), WEEK and LAST_DAY
SELECT id, YEAR(placed_at) AS y, MONTH(placed_at) AS m, DAY(placed_at) AS d, HOUR(placed_at) AS h,
       DAYOFWEEK(placed_at) AS dow, WEEKDAY(placed_at) AS wd, WEEK(placed_at) AS wk, LAST_DAY(placed_at) AS month_end
FROM orders ORDER BY id;

-- plain: EXTRACT (standard)
SELECT id, EXTRACT(YEAR FROM created_at) AS y, EXTRACT(MONTH FROM created_at) AS m FROM customers ORDER BY id;

-- plain: DATE() of a DATETIME(6) column
SELECT id, DATE(placed_at) AS d FROM orders ORDER BY id;

-- FN-016 LOCATE and INSTR
SELECT id, LOCATE('Tea', title) AS loc, INSTR(title, 'Tea') AS ins FROM products ORDER BY id;

-- FN-016 POSITION ... IN (standard)
SELECT id, POSITION('@' IN email) AS at_pos FROM customers ORDER BY id;

-- FN-017 SUBSTRING_INDEX with a negative count
SELECT id, SUBSTRING_INDEX(email, '@', -1) AS domain FROM customers ORDER BY id;

-- FN-017 FIND_IN_SET on a SET column, and ISNULL(x) as a function, in a WHERE
SELECT id FROM customers WHERE FIND_IN_SET('vip', tags) > 0 OR ISNULL(tags) ORDER BY id;

-- FN-017 FIELD in ORDER BY and ELT over FIELD in the select list
SELECT id, tier, ELT(FIELD(tier, 'free', 'pro', 'enterprise'), 'F', 'P', 'E') AS t FROM customers ORDER BY FIELD(tier, 'enterprise', 'pro', 'free'), id;

-- plain: SUBSTRING and SUBSTR with positive positions
SELECT id, SUBSTRING(sku, 1, 3) AS prefix, SUBSTR(sku, 5) AS num FROM products ORDER BY id;

-- FN SUBSTRING with a negative start (counts from the end in MySQL only) and with start 0
SELECT id, SUBSTRING(sku, -3) AS last3, SUBSTRING(sku, 0, 3) AS from_zero FROM products ORDER BY id;

-- FN MID and SPACE
SELECT id, CONCAT(MID(code, 2, 3), SPACE(2), name) AS s FROM customers ORDER BY id;

-- plain: LEFT and RIGHT
SELECT id, LEFT(title, 3) AS l, RIGHT(sku, 3) AS r FROM products ORDER BY id;

-- FN LPAD of an integer column
SELECT id, LPAD(id, 5, '0') AS padded FROM customers ORDER BY id;

-- plain: RPAD of a string column (with a non-ASCII name)
SELECT id, RPAD(name, 8, '.') AS dotted FROM customers ORDER BY id;

-- plain: REPLACE
SELECT id, REPLACE(email, 'example.com', 'example.org') AS e FROM customers ORDER BY id;

-- plain: REVERSE
SELECT id, REVERSE(sku) AS r FROM products ORDER BY id;

-- FN-018 LENGTH (bytes) vs CHAR_LENGTH on 'Ève'
SELECT id, name, LENGTH(name) AS len, CHAR_LENGTH(name) AS chars FROM customers WHERE id IN (1, 5) ORDER BY id;

-- FN-018 LENGTH compared with CHAR_LENGTH in a WHERE (multi-byte names and notes)
SELECT id FROM customers WHERE LENGTH(name) <> CHAR_LENGTH(name) OR LENGTH(notes) <> CHAR_LENGTH(notes) ORDER BY id;

-- FN-018 LCASE, UCASE and STRCMP
SELECT id, LCASE(email) AS e, UCASE(name) AS n, STRCMP(name, 'Carol') AS cmp FROM customers ORDER BY id;

-- plain: LOWER and UPPER, including 'Ève' (standard)
SELECT id, LOWER(email) AS e, UPPER(name) AS n FROM customers ORDER BY id;

-- FN LOWER in ORDER BY (order follows the collation: 'Ève' after 'Dave' in MySQL, last under a C / C.UTF-8 PostgreSQL database)
SELECT id, name FROM customers ORDER BY LOWER(name), id;

-- FN-021 RAND in ORDER BY (non-deterministic)
SELECT id FROM products ORDER BY RAND() LIMIT 1;

-- FN-021 MD5
SELECT id, MD5(email) AS h FROM customers ORDER BY id;

-- FN-021 SHA1 and SHA2
SELECT SHA1('abc') AS s1, SHA2('abc', 256) AS s256;

-- FN-021 HEX and UNHEX of a string column
SELECT id, HEX(sku) AS h, UNHEX(HEX(sku)) AS back FROM products ORDER BY id;

-- FN-021 CONV to base 2 and CRC32
SELECT id, CONV(stock, 10, 2) AS bin, CRC32(sku) AS c FROM products ORDER BY id;

-- FN-022 TRUNCATE(n, d) and ROUND(n, d) on a DOUBLE column
SELECT id, TRUNCATE(score, 1) AS t, ROUND(score, 2) AS r FROM customers ORDER BY id;

-- plain: ROUND(x, 1) on a DECIMAL (standard)
SELECT id, ROUND(balance, 1) AS b FROM customers ORDER BY id;

-- FN-022 FORMAT with thousands separators
SELECT id, FORMAT(balance, 2) AS b FROM customers ORDER BY id;

-- plain: CEIL and FLOOR on a DECIMAL (standard)
SELECT id, CEIL(balance) AS c, FLOOR(balance) AS f FROM customers ORDER BY id;

-- plain: ABS in the select list and the WHERE (standard)
SELECT id, ABS(balance) AS a FROM customers WHERE ABS(balance) < 10 ORDER BY id;

-- FN POW of a DECIMAL (DOUBLE in MySQL, NUMERIC in PostgreSQL)
SELECT id, POW(price, 2) AS sq FROM products ORDER BY id;

-- plain: MOD() as a function
SELECT id, MOD(stock, 7) AS rest FROM products ORDER BY id;

-- FN-019 GREATEST and LEAST with a NULL argument
SELECT id, GREATEST(score, rating) AS hi, LEAST(score, rating) AS lo FROM customers ORDER BY id;

-- plain: GREATEST in UPDATE SET (no NULLs)
UPDATE products SET stock = GREATEST(stock - 10, 0) WHERE id = 1;

-- FN CAST AS SIGNED of a DECIMAL (rounds) and CAST AS UNSIGNED of a YEAR
SELECT id, CAST(balance AS SIGNED) AS whole, CAST(birth_year AS UNSIGNED) AS born FROM customers ORDER BY id;

-- FN CAST AS CHAR (CHAR(1) in PostgreSQL)
SELECT id, CAST(total AS CHAR) AS t FROM orders ORDER BY id;

-- FN CAST AS DATETIME
SELECT CAST('2024-05-01 10:00:00' AS DATETIME) AS dt;

-- plain: CAST AS DECIMAL(10,2) of a DOUBLE
SELECT id, CAST(score AS DECIMAL(10,2)) AS s FROM customers ORDER BY id;

-- FN CONVERT(x, CHAR) and CONVERT(x USING utf8mb4)
SELECT id, CONVERT(price, CHAR) AS p, CONVERT(title USING utf8mb4) AS t FROM products ORDER BY id;

-- FN-020 JSON_EXTRACT with a JSONPath and JSON_LENGTH
SELECT id, JSON_EXTRACT(profile, '$.lang') AS lang, JSON_LENGTH(profile) AS n FROM customers ORDER BY id;

-- FN-020 JSON_UNQUOTE of JSON_EXTRACT in the select list and the WHERE
SELECT id, JSON_UNQUOTE(JSON_EXTRACT(profile, '$.lang')) AS lang FROM customers WHERE JSON_EXTRACT(profile, '$.lang') IS NOT NULL ORDER BY id;

-- FN-020 JSON_VALUE with a JSONPath into an array (MariaDB's form of ->>, which it lacks)
SELECT id, JSON_VALUE(profile, '$.tags[0]') AS first_tag FROM customers WHERE id = 4;

-- FN-020 JSON_OBJECT and JSON_ARRAY (with a NULL element)
SELECT id, JSON_OBJECT('id', id, 'email', email) AS obj, JSON_ARRAY(id, country, NULL) AS arr FROM customers WHERE id IN (1, 3) ORDER BY id;

-- FN-020 JSON_CONTAINS at a path
SELECT id FROM customers WHERE JSON_CONTAINS(profile, '"fr"', '$.lang') ORDER BY id;

-- FN-023 DATABASE(), USER() and CONNECTION_ID()
SELECT DATABASE() AS db, USER() AS u, CONNECTION_ID() AS cid;

-- FN-023 VERSION() (different text on every server)
SELECT VERSION() AS v;

-- FN-012 FN-013 LAST_INSERT_ID(), ROW_COUNT() and FOUND_ROWS() (values depend on the session's previous statement)
SELECT LAST_INSERT_ID() AS last_id, ROW_COUNT() AS row_count, FOUND_ROWS() AS found;

-- plain: BIT_COUNT of a BIT(8) column
SELECT id, BIT_COUNT(flags) AS bits FROM products ORDER BY id;

-- FN-024 INET_ATON
SELECT INET_ATON('192.168.1.10') AS n;

-- plain: COUNT(*), COUNT(col) and COUNT(DISTINCT col) (standard)
SELECT COUNT(*) AS n, COUNT(country) AS with_country, COUNT(DISTINCT country) AS countries FROM customers;

-- FN COUNT(DISTINCT) under a case-insensitive collation ('shipped' and 'Shipped' are one value in MySQL)
SELECT COUNT(DISTINCT status) AS statuses FROM orders;

-- plain: SUM, MIN, MAX per group (standard)
SELECT customer_id, SUM(total) AS s, MIN(placed_at) AS first_at, MAX(placed_at) AS last_at FROM orders GROUP BY customer_id ORDER BY customer_id;

-- FN MIN and MAX of a string column (collation decides: 'Ève' sorts as E in MySQL, last under a C / C.UTF-8 PostgreSQL database)
SELECT MIN(name) AS first_name, MAX(name) AS last_name FROM customers;

-- FN AVG of a DECIMAL (result scale and value differ: 6 extra digits in MySQL, 16 in PostgreSQL)
SELECT COUNT(*) AS n, AVG(price) AS avg_price FROM products;

-- FN SUM(int) / COUNT(*) (decimal division in MySQL, integer division in PostgreSQL)
SELECT SUM(qty) AS q, COUNT(*) AS n, SUM(qty) / COUNT(*) AS avg_qty FROM order_items;
