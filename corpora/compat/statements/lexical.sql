-- LEX-001 backticks on the mixed-case table and its columns
SELECT `Id`, `EventName`, `At` FROM `AuditTrail` ORDER BY `Id`;

-- LEX-001 backticks on lower-case tables and columns
SELECT `c`.`id`, `c`.`email` FROM `customers` AS `c` WHERE `c`.`country` = 'DE' ORDER BY `c`.`id`;

-- LEX-001 backticks in an INSERT into the mixed-case table
INSERT INTO `AuditTrail` (`Id`, `EventName`, `At`) VALUES (3, 'export', '2024-05-02 09:00:00');

-- LEX-002 double-quoted string equal to the name of a column: MySQL compares with the text 'name', PostgreSQL with the column
SELECT id FROM customers WHERE name <> "name" ORDER BY id;

-- LEX-002 double-quoted string in the select list that is also a column name
SELECT id, "name" AS label FROM customers ORDER BY id;

-- LEX-002 double-quoted string compared with a CHAR column (no column of that name)
SELECT id FROM customers WHERE country = "DE" ORDER BY id;

-- LEX-002 double-quoted strings in INSERT values
INSERT INTO kv (k, v, hits) VALUES ("zeta", "six", 6);

-- LEX-003 backslash-escaped single quote inside a string
SELECT id FROM customers WHERE notes = 'a\'quote';

-- LEX-003 backslash-n escape (a newline in MySQL, two characters in PostgreSQL)
SELECT 'a\nb' AS s;

-- LEX-003 doubled backslash (one backslash in MySQL, two in PostgreSQL)
SELECT 'C:\\path' AS p;

-- LEX-003 backslash-t escape written into a row
SELECT k, CONCAT(k, '\t', v) AS line FROM kv WHERE k = 'alpha';

-- plain: a quote doubled inside a string, the standard way
SELECT id FROM customers WHERE notes = 'a''quote';

-- LEX-004 hash comment at the end of a line
SELECT id, email # the contact address
FROM customers ORDER BY id;

-- plain: double-dash comment with a space, at the end of a line
SELECT id, name -- the display name
FROM customers ORDER BY id;

-- LEX-004 double dash without a following space is minus minus in MySQL, a comment in PostgreSQL
SELECT 10--2;

-- plain: block comment in the middle of a statement
SELECT id, /* the price in EUR */ price FROM products ORDER BY id;

-- LEX-005 versioned comment with real content (SQL_NO_CACHE)
SELECT /*!40001 SQL_NO_CACHE */ id, title FROM products ORDER BY id;

-- LEX-005 versioned comment hiding part of a WHERE condition
SELECT id FROM orders WHERE status = 'shipped' /*!50000 AND total > 10 */ ORDER BY id;

-- LEX-005 unversioned executable comment hiding a whole WHERE clause
SELECT COUNT(*) FROM customers /*! WHERE country = 'FR' */;

-- LEX-005 statement that is only a versioned comment (mysqldump header)
/*!40101 SET NAMES utf8mb4 */;

-- LEX-005 optimizer hint comment
SELECT /*+ MAX_EXECUTION_TIME(1000) */ id, status FROM orders ORDER BY id;

-- LEX hex literal 0x41 in the select list
SELECT 0x41 AS h;

-- LEX hex literal 0x... compared with a VARCHAR column
SELECT id, title FROM products WHERE sku = 0x5445412D303031;

-- LEX hex literal X'41' (a bit string in PostgreSQL)
SELECT X'41' AS h;

-- LEX bit literal b'...' compared with a BIT(8) column
SELECT id, sku FROM products WHERE flags = b'00000011';

-- LEX bit literal 0b101 in arithmetic
SELECT 0b101 + 0 AS n;

-- LEX-008 && as logical AND
SELECT id FROM products WHERE stock > 0 && price < 10 ORDER BY id;

-- LEX-007 || as logical OR between comparisons
SELECT id FROM customers WHERE country = 'DE' || country = 'FR' ORDER BY id;

-- LEX-007 || between two string columns: logical OR in MySQL (strings cast to numbers), concatenation in PostgreSQL
SELECT id, country || code AS cc FROM customers ORDER BY id;

-- LEX-008 ! as NOT
SELECT id FROM orders WHERE !(total > 10) ORDER BY id;

-- LEX user variable assigned with := in SET
SET @limit_total := 20;

-- LEX user variable assigned with := in a SELECT
SELECT @order_sum := SUM(total) AS order_sum FROM orders;

-- LEX user variables numbering rows with := (self-contained: initialised in a derived table)
SELECT (@rn := @rn + 1) AS rn, id, name FROM customers, (SELECT @rn := 0) AS init ORDER BY id;

-- LEX user variable never set, named like a column (NULL in MySQL; @ is absolute value in PostgreSQL)
SELECT id, @balance AS b FROM customers ORDER BY id;

-- LEX-008 DIV integer division
SELECT id, stock DIV 7 AS packs FROM products ORDER BY id;

-- LEX-008 MOD as an operator
SELECT id, stock MOD 7 AS rest FROM products ORDER BY id;

-- plain: % as the modulo operator
SELECT id, stock % 7 AS rest FROM products ORDER BY id;

-- LEX-008 XOR
SELECT id FROM customers WHERE (country = 'FR') XOR (tier = 'pro') ORDER BY id;

-- LEX-008 <=> null-safe equality with NULL
SELECT id FROM customers WHERE country <=> NULL ORDER BY id;

-- LEX-008 REGEXP
SELECT id, title FROM products WHERE title REGEXP '^[a-s]' ORDER BY id;

-- LEX-008 RLIKE (case-insensitive under the column's collation)
SELECT id, email FROM customers WHERE email RLIKE '^[a-c]' ORDER BY id;

-- LEX-009 SELECT ... FROM DUAL
SELECT 1 + 1 AS two FROM DUAL;

-- LEX adjacent string literals on one line are concatenated in MySQL
SELECT id FROM products WHERE sku = 'TEA' '-001';

-- plain: adjacent string literals separated by a newline (concatenated by both)
SELECT id FROM products WHERE sku = 'TEA'
  '-001';

-- plain: N'...' national character literal
SELECT id, email FROM customers WHERE name = N'Ève';

-- LEX _utf8mb4 character set introducer
SELECT id FROM customers WHERE name = _utf8mb4'Ève';

-- LEX-006 PostgreSQL keywords as column aliases without AS (year, month)
SELECT id, birth_year year, MONTH(created_at) month FROM customers ORDER BY id;

-- LEX-006 user as a column alias without AS (a bare label in PostgreSQL too)
SELECT id, email user FROM customers ORDER BY id;

-- plain: join with a WHERE on a decimal column
SELECT o.id, c.email, o.total FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.total > 20 ORDER BY o.id;

-- plain: aggregate with IN list and BETWEEN
SELECT COUNT(*) AS n, SUM(qty) AS q FROM order_items WHERE product_id IN (1, 4, 5) AND unit_price BETWEEN 4 AND 40;
