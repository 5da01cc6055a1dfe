-- The same rows as sbtest.mysql.sql, for PostgreSQL (each id with its own sequence, as pgloader
-- makes AUTO_INCREMENT). Loaded by scripts/load-scenario.sh.
CREATE TABLE sbtest1 (id SERIAL PRIMARY KEY, k INTEGER NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '');
CREATE TABLE sbtest2 (id SERIAL PRIMARY KEY, k INTEGER NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '');
CREATE TABLE sbtest3 (id SERIAL PRIMARY KEY, k INTEGER NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '');
CREATE TABLE sbtest4 (id SERIAL PRIMARY KEY, k INTEGER NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '');
CREATE INDEX k_1 ON sbtest1(k);
CREATE INDEX k_2 ON sbtest2(k);
CREATE INDEX k_3 ON sbtest3(k);
CREATE INDEX k_4 ON sbtest4(k);
INSERT INTO sbtest1 SELECT g, (g*7919) % 10007, md5(g::text) || '-' || md5((g+1)::text) || '-' || md5((g+2)::text), md5((g+3)::text) FROM generate_series(1, 10000) g;
INSERT INTO sbtest2 SELECT * FROM sbtest1;
INSERT INTO sbtest3 SELECT * FROM sbtest1;
INSERT INTO sbtest4 SELECT * FROM sbtest1;
SELECT setval(pg_get_serial_sequence(t, 'id'), 10000) FROM unnest(ARRAY['sbtest1','sbtest2','sbtest3','sbtest4']) t;
