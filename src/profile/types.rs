//! A MySQL column type as the profile translates it.

use super::Profile;
use crate::schema::MySqlType;

impl Profile {
    /// The type cutover writes on the target for `t`: the `ddl` template of the most specific type-map
    /// entry (see [`Profile::type_mapping`]), filled in. `None` when the profile does not know the type.
    ///
    /// A template's `($n)` is dropped when the MySQL type has no length (`CHAR` → `char`, which is
    /// `char(1)` on the target as on MySQL; `VARCHAR` without a length only comes from hand-written DDL).
    pub fn target_type(&self, t: &MySqlType) -> Option<String> {
        let (_, mapping) = self.type_mapping(t)?;
        let template = mapping.ddl.as_deref()?;
        let mut out = template.replace("$type", &t.text.to_lowercase());
        match t.length {
            Some(n) => out = out.replace("$n", &n.to_string()),
            None => out = out.replace("($n)", "").replace("$n", "1"),
        }
        out = out
            .replace("$m", &t.length.unwrap_or(10).to_string())
            .replace("$d", &t.scale.unwrap_or(0).to_string());
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::profile::load_profile;
    use crate::schema::MySqlType;

    #[test]
    fn templates_fill_in() {
        let p = load_profile("postgres", None).unwrap();
        let t = |s: &str| p.target_type(&MySqlType::parse(s));
        assert_eq!(t("int(10) unsigned").as_deref(), Some("bigint"));
        assert_eq!(t("tinyint(1)").as_deref(), Some("boolean"));
        assert_eq!(t("decimal(12,3)").as_deref(), Some("numeric(12,3)"));
        assert_eq!(t("decimal(7)").as_deref(), Some("numeric(7,0)"));
        assert_eq!(t("varchar(255)").as_deref(), Some("varchar(255)"));
        assert_eq!(t("char").as_deref(), Some("char"));
        assert_eq!(t("datetime(6)").as_deref(), Some("timestamp(6)"));
        assert_eq!(t("bit(8)").as_deref(), Some("bit(8)"));
        assert_eq!(t("uuid"), None);
        let k = load_profile("kingbase", None).unwrap();
        assert_eq!(
            k.target_type(&MySqlType::parse("enum('a','b')")).as_deref(),
            Some("enum('a','b')")
        );
    }

    /// Every type-map entry of every profile has a `ddl` template.
    #[test]
    fn every_type_has_a_ddl() {
        for id in ["postgres", "kingbase", "kingbase-pg", "kaiwudb"] {
            let p = load_profile(id, None).unwrap();
            for (key, m) in &p.types {
                assert!(m.ddl.is_some(), "{id}: [types.{key:?}] has no ddl");
            }
        }
    }
}
