-- After loading rows with explicit ids, move the identity sequences past them (what a careful migration
-- does; cutover's audit reports the need as SEM-010).
SELECT setval(pg_get_serial_sequence('customers', 'id'), (SELECT max(id) FROM customers));
SELECT setval(pg_get_serial_sequence('orders', 'id'), (SELECT max(id) FROM orders));
