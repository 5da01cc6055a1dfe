-- The sysbench tables the shipped capture (corpora/sysbench) reads, 10,000 deterministic rows each,
-- for MariaDB (the SEQUENCE engine's seq_1_to_10000). Loaded by scripts/load-scenario.sh.
CREATE TABLE sbtest1 (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k_1 (k));
CREATE TABLE sbtest2 LIKE sbtest1;
CREATE TABLE sbtest3 LIKE sbtest1;
CREATE TABLE sbtest4 LIKE sbtest1;
INSERT INTO sbtest1 SELECT seq, (seq*7919) % 10007, CONCAT(MD5(seq), '-', MD5(seq+1), '-', MD5(seq+2)), MD5(seq+3) FROM seq_1_to_10000;
INSERT INTO sbtest2 SELECT * FROM sbtest1;
INSERT INTO sbtest3 SELECT * FROM sbtest1;
INSERT INTO sbtest4 SELECT * FROM sbtest1;
