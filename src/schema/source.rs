//! Reads the schema of a live MySQL/MariaDB server from information_schema (read-only queries).

use super::{Column, MySqlType, Schema, Table};
use crate::db::exec::Session;
use crate::db::value::Value;
use crate::db::{DbError, Endpoint};

fn text(v: &Value) -> Option<String> {
    v.as_text()
}

/// Reads every base table of the URL's database (or of every non-system database when the URL names
/// none). Only SELECTs on information_schema; nothing is written.
pub async fn schema_from_server(endpoint: &Endpoint) -> Result<Schema, DbError> {
    let mut s = Session::connect(endpoint).await?;
    let filter = match endpoint.database() {
        Some(db) => format!("= '{}'", db.replace('\'', "''")),
        None => "NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')".to_string(),
    };
    let lctn = s
        .execute("SELECT @@lower_case_table_names")
        .await?
        .sets
        .first()
        .and_then(|r| r.rows.first())
        .and_then(|r| text(&r[0]))
        .and_then(|t| t.parse::<u8>().ok());
    let tables = s
        .execute(&format!("SELECT TABLE_NAME, ENGINE, TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA {filter} AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME"))
        .await?;
    let cols = s
        .execute(&format!(
            "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLLATION_NAME, EXTRA, COLUMN_DEFAULT, GENERATION_EXPRESSION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA {filter} ORDER BY TABLE_NAME, ORDINAL_POSITION"
        ))
        .await?;
    let keys = s
        .execute(&format!(
            "SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA {filter} AND NON_UNIQUE = 0 ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX"
        ))
        .await?;
    let views = s
        .execute(&format!(
            "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA {filter} AND TABLE_TYPE = 'VIEW' ORDER BY TABLE_NAME"
        ))
        .await?;
    s.close().await;
    let views: Vec<String> = views
        .sets
        .first()
        .map(|x| x.rows.as_slice())
        .unwrap_or_default()
        .iter()
        .filter_map(|r| r.first().and_then(text))
        .collect();
    let mut out: Vec<Table> = Vec::new();
    for r in tables
        .sets
        .first()
        .map(|x| x.rows.as_slice())
        .unwrap_or_default()
    {
        out.push(Table {
            collation: text(&r[2]).map(|c| c.to_lowercase()),
            engine: text(&r[1]).map(|e| e.to_lowercase()),
            ..Table::named(text(&r[0]).unwrap_or_default())
        });
    }
    for r in cols
        .sets
        .first()
        .map(|x| x.rows.as_slice())
        .unwrap_or_default()
    {
        let tname = text(&r[0]).unwrap_or_default();
        let Some(t) = out.iter_mut().find(|t| t.name == tname) else {
            continue;
        };
        let extra = text(&r[5]).unwrap_or_default().to_lowercase();
        t.columns.push(Column {
            name: text(&r[1]).unwrap_or_default(),
            mysql_type: MySqlType::parse(&text(&r[2]).unwrap_or_default()),
            nullable: text(&r[3]).is_some_and(|n| n == "YES"),
            collation: text(&r[4]).map(|c| c.to_lowercase()),
            auto_increment: extra.contains("auto_increment"),
            on_update_current_timestamp: extra.contains("on update"),
            generated: text(&r[7]).is_some_and(|g| !g.is_empty()) || extra.contains("generated"),
            default: text(&r[6]),
        });
    }
    let mut current: Option<(String, String)> = None;
    let mut cols_of_key: Vec<String> = Vec::new();
    let flush = |out: &mut Vec<Table>, key: &Option<(String, String)>, cols: &mut Vec<String>| {
        if let Some((tname, kname)) = key
            && let Some(t) = out.iter_mut().find(|t| &t.name == tname)
        {
            if kname == "PRIMARY" {
                t.primary_key = std::mem::take(cols);
            } else {
                t.unique_keys.push(std::mem::take(cols));
            }
        }
        cols.clear();
    };
    for r in keys
        .sets
        .first()
        .map(|x| x.rows.as_slice())
        .unwrap_or_default()
    {
        let k = (
            text(&r[0]).unwrap_or_default(),
            text(&r[1]).unwrap_or_default(),
        );
        if current.as_ref() != Some(&k) {
            flush(&mut out, &current, &mut cols_of_key);
            current = Some(k);
        }
        cols_of_key.push(text(&r[2]).unwrap_or_default());
    }
    flush(&mut out, &current, &mut cols_of_key);
    Ok(Schema::new(out, lctn).with_views(views))
}
