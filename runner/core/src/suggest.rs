//! "Did you mean": the name an author most likely meant when a word they
//! typed is not one the book knows (a header key, a problem, a fence word,
//! a directive, a field, an example id).

/// The candidate closest to `word`, when it is close enough to be a typo of
/// it, ignoring case: one edit (a letter added, dropped or changed, or two
/// neighbours swapped) for words of up to four letters, two up to seven,
/// three beyond, counted on the longer of the two; none where either is a
/// single letter (`m` is not a typo of `n`). Ties go to the first
/// candidate.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let typed = word.to_lowercase();
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        let distance = strsim::osa_distance(&typed, &candidate.to_lowercase());
        let (a, b) = (typed.chars().count(), candidate.chars().count());
        let allowed = if a.min(b) <= 1 {
            0
        } else {
            ((a.max(b) + 1) / 3).clamp(1, 3)
        };
        if distance <= allowed && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// `; did you mean `X`?` after what is wrong, or nothing when no candidate
/// is close.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, candidates)
        .map(|c| format!("; did you mean `{c}`?"))
        .unwrap_or_default()
}

/// `what` followed by a suggestion for `word` when one is close, else by
/// `: fix`: "unknown key `sise`; did you mean `sizes`?" or "unknown key
/// `foo`: use one of ...".
pub fn message<'a>(
    what: &str,
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    fix: &str,
) -> String {
    match closest(word, candidates) {
        Some(c) => format!("{what}; did you mean `{c}`?"),
        None => format!("{what}: {fix}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: [&str; 8] = [
        "problem",
        "sizes",
        "launch",
        "scratch",
        "bytes",
        "compile",
        "expect",
        "timeout_s",
    ];

    // Typos of one or two letters find the word meant; case is ignored.
    #[test]
    fn typos_find_the_word_meant() {
        let cases = [
            ("sise", "sizes"),
            ("size", "sizes"),
            ("problm", "problem"),
            ("launches", "launch"),
            ("timeout", "timeout_s"),
            ("expcet", "expect"),
            ("Sizes", "sizes"),
        ];
        for (typed, want) in cases {
            assert_eq!(closest(typed, KEYS), Some(want), "{typed}");
        }
        assert_eq!(closest("rn", ["run"]), Some("run"));
        assert_eq!(closest("urn", ["run"]), Some("run"));
        assert_eq!(closest("tme", ["time", "hot"]), Some("time"));
    }

    // Words that are not near any candidate get no suggestion, so a
    // suggestion is never a wild guess.
    #[test]
    fn unrelated_words_get_none() {
        for typed in ["foo", "grid", "x", "kernels_dir"] {
            assert_eq!(closest(typed, KEYS), None, "{typed}");
        }
        assert_eq!(closest("running", ["run"]), None);
        // A single letter is no typo of another: `m` for the variable `n`.
        assert_eq!(closest("m", ["n", "sms"]), None);
        assert_eq!(closest("N", ["n", "sms"]), Some("n"));
        assert_eq!(closest("rust", ["run"]), None);
        assert_eq!(closest("ignore", ["run"]), None);
    }

    // The message has the suggestion, or else the fix.
    #[test]
    fn message_has_suggestion_or_fix() {
        assert_eq!(
            message("unknown key `sise`", "sise", KEYS, "use one of ..."),
            "unknown key `sise`; did you mean `sizes`?"
        );
        assert_eq!(
            message("unknown key `foo`", "foo", KEYS, "use one of ..."),
            "unknown key `foo`: use one of ..."
        );
        assert_eq!(did_you_mean("gbps", ["gbs"]), "; did you mean `gbs`?");
        assert_eq!(did_you_mean("zzz", ["gbs"]), "");
    }
}
