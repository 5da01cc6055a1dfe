-- Rows for the compat corpus, valid on both engines (plain ANSI INSERTs: no MySQL-only syntax).
INSERT INTO customers (id, email, name, code, country, is_active, tier, tags, birth_year, balance, score, rating, notes, avatar, profile, created_at, updated_at) VALUES
 (1, 'alice@example.com', 'Alice', 'A001', 'DE', TRUE, 'pro', 'vip', 1990, 120.50, 4.25, 3.5, 'likes tea', NULL, '{"lang": "de", "newsletter": true}', '2024-01-05 10:00:00', '2024-01-05 10:00:00'),
 (2, 'Bob@Example.com', 'bob', 'B002', 'US', TRUE, 'free', NULL, 1985, 0.00, NULL, NULL, '', NULL, '{"lang": "en"}', '2024-01-06 11:30:00', '2024-01-06 11:30:00'),
 (3, 'carol@example.com', 'Carol ', 'C003', NULL, FALSE, 'enterprise', 'new,vip', NULL, 9999.99, 1.5, 2.25, NULL, NULL, NULL, '2024-02-10 08:15:00', '2024-02-10 08:15:00'),
 (4, 'dave@example.com', 'Dave', 'D004', 'FR', TRUE, 'free', 'churned', 2001, -15.75, 0.1, 0.5, 'owes money', NULL, '{"lang": "fr", "tags": ["a", "b"]}', '2024-03-01 00:00:00', '2024-03-01 00:00:00'),
 (5, 'eve@example.com', 'Ève', 'E005', 'FR', TRUE, 'pro', 'new', 1999, 42.00, 3.333333333333, 1.25, 'café owner', NULL, '{"lang": "fr"}', '2024-03-15 23:59:59', '2024-03-15 23:59:59'),
 (6, 'frank@example.com', 'frank', 'F006', 'DE', FALSE, 'free', NULL, 1970, 5.10, 2.0, 4.0, NULL, NULL, '{}', '2024-04-01 12:00:00', '2024-04-01 12:00:00'),
 (7, 'GRACE@EXAMPLE.COM', 'Grace', 'G007', 'US', TRUE, 'pro', 'vip', 1980, 300.00, 5.0, 5.0, 'VIP since 2020', NULL, '{"lang": "en", "score": 10}', '2024-04-20 09:45:00', '2024-04-20 09:45:00'),
 (8, 'heidi@example.com', 'Heidi', 'H008', 'CH', TRUE, 'enterprise', NULL, 1995, 0.01, 3.0, NULL, 'a''quote', NULL, NULL, '2024-05-05 05:05:05', '2024-05-05 05:05:05');

INSERT INTO products (id, sku, title, price, stock, weight_kg, flags, category) VALUES
 (1, 'TEA-001', 'Green Tea', 4.99, 120, 0.250, b'00000001', 'drinks'),
 (2, 'tea-002', 'Black Tea', 3.49, 0, 0.250, b'00000011', 'drinks'),
 (3, 'MUG-001', 'Mug', 9.90, 15, 0.400, b'00000000', 'kitchen'),
 (4, 'BOOK-001', 'SQL Cookbook', 39.00, 7, 1.100, b'00000100', 'books'),
 (5, 'BOOK-002', 'sql basics', 19.50, 3, NULL, b'00000000', 'books'),
 (6, 'PEN-001', 'Pen', 1.20, 500, 0.010, b'10000000', NULL);

INSERT INTO orders (id, customer_id, status, total, placed_at, shipped_on, note) VALUES
 (1, 1, 'shipped', 14.97, '2024-05-01 10:00:00.123456', '2024-05-03', ''),
 (2, 1, 'pending', 39.00, '2024-05-02 11:00:00', NULL, 'gift'),
 (3, 2, 'shipped', 9.90, '2024-05-02 12:30:00', '2024-05-04', ''),
 (4, 3, 'cancelled', 0.00, '2024-05-03 09:00:00', NULL, 'customer changed mind'),
 (5, 4, 'shipped', 21.20, '2024-05-04 15:45:30.5', '2024-05-06', ''),
 (6, 5, 'pending', 3.49, '2024-05-05 08:00:00', NULL, ''),
 (7, 7, 'shipped', 58.50, '2024-05-06 18:20:00', '2024-05-07', 'express'),
 (8, 7, 'Shipped', 4.99, '2024-05-07 07:07:07', '2024-05-08', '');

INSERT INTO order_items (order_id, product_id, qty, unit_price) VALUES
 (1, 1, 3, 4.99), (2, 4, 1, 39.00), (3, 3, 1, 9.90), (5, 5, 1, 19.50), (5, 6, 1, 1.20),
 (6, 2, 1, 3.49), (7, 4, 1, 39.00), (7, 5, 1, 19.50), (8, 1, 1, 4.99);

INSERT INTO kv (k, v, hits) VALUES ('alpha', 'one', 1), ('Beta', 'two', 2), ('gamma', NULL, 0), ('delta ', 'four', 4);
