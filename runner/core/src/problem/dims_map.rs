//! Serialises a size as records keep it: an ordered map of each
//! dimension's name to its value (`{"rows": 8192, "cols": 4096}`), in the
//! problem's order. Read back, the names are matched to a registered
//! problem's dimensions ([`super::dims_named`]), so it lives with the
//! problems, above [`crate::dims`], which knows no problem. Records,
//! profiles and sanitizer reports name it in `#[serde(with = ...)]`.

use crate::dims::{Dims, MAX_DIMS};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serializer};
use std::fmt;

/// Writes the map.
pub fn serialize<S: Serializer>(dims: &Option<Dims>, s: S) -> Result<S::Ok, S::Error> {
    let Some(dims) = dims else {
        return s.serialize_none();
    };
    let mut map = s.serialize_map(Some(dims.dims().len()))?;
    for (d, v) in dims.iter() {
        map.serialize_entry(d.name, &v)?;
    }
    map.end()
}

/// Reads the map, keeping its order.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Dims>, D::Error> {
    struct Pairs(Vec<(String, u64)>);
    impl<'de> Deserialize<'de> for Pairs {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Pairs;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a map of dimension names to whole numbers")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut a: A,
                ) -> Result<Pairs, A::Error> {
                    let mut out = Vec::new();
                    while let Some(entry) = a.next_entry::<String, u64>()? {
                        out.push(entry);
                    }
                    Ok(Pairs(out))
                }
            }
            d.deserialize_map(V)
        }
    }
    let Some(Pairs(pairs)) = Option::<Pairs>::deserialize(d)? else {
        return Ok(None);
    };
    let names: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
    let dims = super::dims_named(&names);
    let values: Vec<u64> = pairs.iter().map(|(_, v)| *v).collect();
    Dims::new(dims, &values)
        .map(Some)
        .ok_or_else(|| serde::de::Error::custom(format!("at most {MAX_DIMS} dimensions")))
}
