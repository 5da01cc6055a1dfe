//! cutover: tells a team whether it is safe to move a MySQL application onto another database.
//!
//! Data flows one way: log → events ([`capture`]) → [`digest`], [`audit`], [`replay`], [`verify`] →
//! results printed by [`render`]; [`report`] judges the results and [`check`] runs the whole path
//! from one scenario file. Each stage is entered only through what its `mod.rs` exports; stages
//! meet in the plain serde types of the shared pieces: [`workload`] (events, the result header),
//! [`profile`] (target profiles, findings, rewrites), [`schema`], [`sql`], [`db`].

pub mod audit;
pub mod capture;
pub mod check;
pub mod db;
pub mod digest;
pub mod profile;
pub mod render;
pub mod replay;
pub mod report;
pub mod schema;
pub mod sql;
pub mod verify;
pub mod workload;
