//! Problem sizes as authors write them (`"2^20"`, `1000003`) and as pages
//! show them.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A number of elements. Authors write it as an integer or as `"2^k"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Size(pub u64);

/// Why a size could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error(
    "`{text}` is not a size: write a whole number such as 1000003 or a power of two such as \"2^20\""
)]
pub struct SizeError {
    /// The text as written.
    pub text: String,
}

impl FromStr for Size {
    type Err = SizeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let err = || SizeError {
            text: text.to_string(),
        };
        let t = text.trim().replace('_', "");
        if let Some((base, exp)) = t.split_once('^') {
            let base: u64 = base.trim().parse().map_err(|_| err())?;
            let exp: u32 = exp.trim().parse().map_err(|_| err())?;
            return base.checked_pow(exp).map(Size).ok_or_else(err);
        }
        t.parse::<u64>().map(Size).map_err(|_| err())
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 >= 1024 && self.0.is_power_of_two() {
            write!(f, "2^{}", self.0.trailing_zeros())
        } else {
            write!(f, "{}", self.0)
        }
    }
}

impl Serialize for Size {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(u64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Int(n) => Ok(Size(n)),
            Raw::Text(t) => t.parse().map_err(serde::de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Authors write powers of two; pages print them back the same way.
    #[test]
    fn powers_of_two_round_trip() {
        let s: Size = "2^20".parse().unwrap();
        assert_eq!(s, Size(1 << 20));
        assert_eq!(s.to_string(), "2^20");
        assert_eq!("1000003".parse::<Size>().unwrap().to_string(), "1000003");
    }

    // A typo is an error with the fix in its message, not a zero.
    #[test]
    fn garbage_is_rejected_with_a_hint() {
        let e = "2^x".parse::<Size>().unwrap_err();
        assert!(e.to_string().contains("\"2^20\""));
        assert!("99^99".parse::<Size>().is_err());
    }
}
