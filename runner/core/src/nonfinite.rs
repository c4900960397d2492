//! Floats that survive JSON whatever their value. JSON has no NaN or
//! infinity and `serde_json` writes them as `null`, which then fails to
//! read back as a number: a kernel that wrote NaN turned a correctly judged
//! `wrong` into a lost result. Fields that can hold any float use these
//! adapters (`#[serde(with = "crate::nonfinite")]`): finite values stay
//! plain JSON numbers, and NaN, +inf and -inf are written as the strings
//! `"NaN"`, `"Infinity"` and `"-Infinity"` (JavaScript's spelling, which
//! `Number("NaN")` and Python's `float("NaN")` read back). Reading also
//! accepts `null` as NaN, the form older files may hold.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// Serialises one float.
pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    Repr(*v).serialize(s)
}

/// Deserialises one float.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Repr::deserialize(d).map(|r| r.0)
}

/// A float as this module writes and reads it.
#[derive(Debug, Clone, Copy)]
struct Repr(f64);

impl Serialize for Repr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        if v.is_nan() {
            s.serialize_str("NaN")
        } else if v == f64::INFINITY {
            s.serialize_str("Infinity")
        } else if v == f64::NEG_INFINITY {
            s.serialize_str("-Infinity")
        } else {
            s.serialize_f64(v)
        }
    }
}

impl<'de> Deserialize<'de> for Repr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ReprVisitor).map(Repr)
    }
}

struct ReprVisitor;

impl Visitor<'_> for ReprVisitor {
    type Value = f64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number, \"NaN\", \"Infinity\" or \"-Infinity\"")
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        Ok(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        Ok(v as f64)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        Ok(v as f64)
    }

    fn visit_unit<E: de::Error>(self) -> Result<f64, E> {
        Ok(f64::NAN)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
        match v {
            "NaN" => Ok(f64::NAN),
            "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
        }
    }
}

/// `Option<f64>`: `None` is `null` and NaN is `"NaN"`, so the two stay apart.
pub mod option {
    use super::Repr;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Serialises an optional float.
    pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        v.map(Repr).serialize(s)
    }

    /// Deserialises an optional float (`null` is `None`).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        Option::<Repr>::deserialize(d).map(|o| o.map(|r| r.0))
    }
}

/// `Vec<Vec<f64>>`, the raw samples of every size.
pub mod nested {
    use super::Repr;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Serialises vectors of floats.
    pub fn serialize<S: Serializer>(v: &[Vec<f64>], s: S) -> Result<S::Ok, S::Error> {
        let wrapped: Vec<Vec<Repr>> = v
            .iter()
            .map(|inner| inner.iter().copied().map(Repr).collect())
            .collect();
        wrapped.serialize(s)
    }

    /// Deserialises vectors of floats.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<f64>>, D::Error> {
        let wrapped = Vec::<Vec<Repr>>::deserialize(d)?;
        Ok(wrapped
            .into_iter()
            .map(|inner| inner.into_iter().map(|r| r.0).collect())
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Serialize, Deserialize)]
    struct Sample {
        #[serde(with = "super")]
        x: f64,
        #[serde(with = "super::option")]
        y: Option<f64>,
        #[serde(with = "super::nested")]
        z: Vec<Vec<f64>>,
    }

    fn round_trip(x: f64, y: Option<f64>) -> Sample {
        let s = Sample {
            x,
            y,
            z: vec![vec![x, 1.5]],
        };
        serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap()
    }

    // NaN and both infinities come back as themselves; finite values stay numbers.
    #[test]
    fn every_float_round_trips() {
        assert!(round_trip(f64::NAN, None).x.is_nan());
        assert_eq!(round_trip(f64::INFINITY, None).x, f64::INFINITY);
        assert_eq!(
            round_trip(f64::NEG_INFINITY, None).z[0][0],
            f64::NEG_INFINITY
        );
        assert!(round_trip(1.0, Some(f64::NAN)).y.unwrap().is_nan());
        assert_eq!(round_trip(1.0, None).y, None);
        let text = serde_json::to_string(&Sample {
            x: 2.5,
            y: Some(f64::INFINITY),
            z: vec![],
        })
        .unwrap();
        assert_eq!(text, r#"{"x":2.5,"y":"Infinity","z":[]}"#);
    }

    // Files written before this module held `null` where a NaN was; they read as NaN.
    #[test]
    fn null_reads_as_nan() {
        let s: Sample = serde_json::from_str(r#"{"x":null,"y":null,"z":[[null]]}"#).unwrap();
        assert!(s.x.is_nan() && s.z[0][0].is_nan());
        assert_eq!(s.y, None);
    }
}
