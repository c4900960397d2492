//! The environment of a sandboxed child: built from nothing (bubblewrap's
//! `--clearenv`), then the few variables a compile or a measurement reads,
//! so that a secret in the service's environment (a token, a key) never
//! reaches a child a reader's code runs in.

/// Variables passed through by prefix: the book's own settings, CUDA's
/// and the NVIDIA container runtime's, Rust's backtrace switch, the
/// locale.
const PREFIXES: &[&str] = &["CUDA_MEASURED_", "CUDA_", "NVIDIA_", "NCU_"];
/// Variables passed through by name.
const NAMES: &[&str] = &["RUST_BACKTRACE", "LANG", "LC_ALL", "TZ"];

/// The environment of a child: the passed-through variables of `parent`
/// (the service's environment), `HOME` and `TMPDIR` on the private /tmp,
/// a system `PATH`, `LD_LIBRARY_PATH` as `ld_dirs` (the loader folders
/// bound inside), then the command's own settings (`own`: set, or `None`
/// to remove), which win; sorted by name.
pub fn child_env(
    parent: impl Iterator<Item = (String, String)>,
    ld_dirs: &[String],
    own: &[(String, Option<String>)],
) -> Vec<(String, String)> {
    let mut vars: Vec<(String, String)> = parent
        .filter(|(name, _)| {
            NAMES.contains(&name.as_str()) || PREFIXES.iter().any(|p| name.starts_with(p))
        })
        .collect();
    let fixed = [
        ("HOME", "/tmp".to_string()),
        ("TMPDIR", "/tmp".to_string()),
        ("PATH", "/usr/local/bin:/usr/bin:/bin".to_string()),
        ("LD_LIBRARY_PATH", ld_dirs.join(":")),
    ];
    for (name, value) in fixed {
        vars.retain(|(n, _)| n != name);
        if !value.is_empty() {
            vars.push((name.into(), value));
        }
    }
    for (name, value) in own {
        vars.retain(|(n, _)| n != name);
        if let Some(value) = value {
            vars.push((name.clone(), value.clone()));
        }
    }
    vars.sort();
    vars
}

/// [`child_env`] as bubblewrap's `--setenv NAME VALUE` options.
pub fn setenv_args(vars: Vec<(String, String)>) -> Vec<String> {
    vars.into_iter()
        .flat_map(|(name, value)| ["--setenv".to_string(), name, value])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // A secret of the service's environment does not pass; the book's,
    // CUDA's settings do; HOME is the private /tmp; the command's own
    // settings win and its removals remove.
    #[test]
    fn only_known_variables_pass() {
        let parent = [
            ("AWS_SECRET_ACCESS_KEY", "k"),
            ("HOME", "/root"),
            ("CUDA_VISIBLE_DEVICES", "0"),
            ("CUDA_MEASURED_MODE", "frozen"),
            ("CUDA_MEASURED_QUICK", "1"),
            ("LD_LIBRARY_PATH", "/root/lib"),
        ]
        .map(|(n, v)| (n.to_string(), v.to_string()));
        let own = [
            (
                "CUDA_MEASURED_MODE".to_string(),
                Some("measure".to_string()),
            ),
            ("CUDA_MEASURED_QUICK".to_string(), None),
        ];
        let args = setenv_args(child_env(parent.into_iter(), &["/opt/nvrtc".into()], &own));
        let pairs: Vec<(String, String)> = args
            .chunks(3)
            .map(|c| {
                assert_eq!(c[0], "--setenv");
                (c[1].clone(), c[2].clone())
            })
            .collect();
        let expected = [
            ("CUDA_MEASURED_MODE", "measure"),
            ("CUDA_VISIBLE_DEVICES", "0"),
            ("HOME", "/tmp"),
            ("LD_LIBRARY_PATH", "/opt/nvrtc"),
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("TMPDIR", "/tmp"),
        ]
        .map(|(n, v)| (n.to_string(), v.to_string()));
        assert_eq!(pairs, expected);
    }
}
