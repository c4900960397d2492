//! A declared compile-time parameter that one example sweeps: the header's
//! `[sweep]` table names one parameter and its values
//! (`STRIDE = [1, 2, 4, 8]`); the example is compiled once per value with
//! `-DSTRIDE=<value>`, its plan expressions and `args` see the value as a
//! variable of the same name, and each value is measured at every declared
//! size as its own row of the record ([`SweepValue`]).

use crate::header_lines::HeaderField;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The `[sweep]` table as written: one parameter name and its values, in
/// the order declared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Sweep(pub BTreeMap<String, Vec<u64>>);

/// One value of a swept parameter: what a record's size and edge check
/// carry, and what a directive names as `ID@NAME=VALUE`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SweepValue {
    /// The parameter (`STRIDE`).
    pub name: String,
    /// Its value.
    pub value: u64,
}

impl std::fmt::Display for SweepValue {
    /// `STRIDE = 4`, as panels label a row.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = {}", self.name, self.value)
    }
}

impl SweepValue {
    /// `@STRIDE=4`, the suffix a directive adds to the example's id.
    pub fn suffix(&self) -> String {
        format!("@{}={}", self.name, self.value)
    }

    /// The NVRTC option that defines it: `-DSTRIDE=4`.
    pub fn define(&self) -> String {
        format!("-D{}={}", self.name, self.value)
    }
}

impl Sweep {
    /// The parameter's name (the table's one key).
    pub fn name(&self) -> &str {
        self.0.keys().next().map_or("", String::as_str)
    }

    /// Its values in declared order.
    pub fn values(&self) -> Vec<SweepValue> {
        self.0
            .iter()
            .take(1)
            .flat_map(|(name, values)| {
                values.iter().map(|&value| SweepValue {
                    name: name.clone(),
                    value,
                })
            })
            .collect()
    }

    /// The table of one value only: the declaration of one compilation.
    pub fn only(value: &SweepValue) -> Sweep {
        Sweep(BTreeMap::from([(value.name.clone(), vec![value.value])]))
    }

    /// `1, 2, 4` for messages.
    pub fn listed(&self) -> String {
        self.values()
            .iter()
            .map(|v| v.value.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Why `tool` (`{{#profile}}`, `sass`, ...) cannot take example `id`,
/// which sweeps `sweep`: each value is its own compilation, and these
/// tools take one.
pub fn not_taken_yet(id: &str, sweep: &Sweep, tool: &str) -> String {
    format!(
        "`{id}` sweeps {} ({}): {tool} does not take swept examples yet; show one value with a kernel file of its own, or use {{{{#measured}}}}, {{{{#ratio}}}} and {{{{#ladder}}}} with `{id}@{}=VALUE`",
        sweep.name(),
        sweep.listed(),
        sweep.name()
    )
}

/// Names a swept parameter cannot take, because the plan or the kernel's
/// arguments already mean something by them.
const PLAN_WORDS: &[&str] = &[
    "n",
    "sms",
    "rows",
    "cols",
    "min",
    "max",
    "ceil_div",
    "pow2_floor",
];

/// What is wrong with `sweep` for a declaration whose other argument
/// names are `taken` (the problem's buffers, scalars and dimensions, the
/// scratch buffers) and whose `compile` list is `compile`, with the field
/// to point at.
pub(crate) fn validate<'a>(
    sweep: &'a Sweep,
    taken: &[String],
    compile: &[String],
) -> Result<(), (String, Option<HeaderField<'a>>)> {
    // No key is written `[sweep]`: the line of the table itself.
    let table = Some(HeaderField::Sweep("[sweep]"));
    let mut entries = sweep.0.iter();
    let Some((name, values)) = entries.next() else {
        return Err((
            "the [sweep] table is empty: name one parameter and its values, e.g. STRIDE = [1, 2, 4, 8]".into(),
            table,
        ));
    };
    if let Some((second, _)) = entries.next() {
        return Err((
            format!(
                "the [sweep] table sweeps one parameter, and it names `{name}` and `{second}`: keep one, and write one example per value of the other"
            ),
            Some(HeaderField::Sweep(second)),
        ));
    }
    let at = Some(HeaderField::Sweep(name));
    let identifier = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !identifier {
        return Err((
            format!(
                "swept parameter `{name}` is not a C identifier (letters, digits and `_`, not starting with a digit): it becomes -D{name}=VALUE, so name it e.g. STRIDE"
            ),
            at,
        ));
    }
    let launch_word = ["grid", "block"].iter().any(|p| {
        name.strip_prefix(p)
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    });
    if PLAN_WORDS.contains(&name.as_str()) || launch_word || taken.contains(name) {
        return Err((
            format!(
                "swept parameter `{name}` is already a name of the plan or of the problem's arguments: give it a name of its own, e.g. STRIDE"
            ),
            at,
        ));
    }
    if values.is_empty() {
        return Err((
            format!("`{name}` has no values: list at least one, e.g. {name} = [1, 2, 4]"),
            at,
        ));
    }
    if let Some((i, v)) = values
        .iter()
        .enumerate()
        .find(|(i, v)| values[..*i].contains(v))
    {
        return Err((
            format!(
                "`{name}` lists {v} twice (value {} of {}): each value is measured once, so remove the repeat",
                i + 1,
                values.len()
            ),
            at,
        ));
    }
    if let Some(v) = values.iter().find(|v| **v > u64::from(u32::MAX)) {
        return Err((
            format!(
                "`{name}` = {v} is past 2^32 - 1, which kernels cannot take as an unsigned int: use smaller values"
            ),
            at,
        ));
    }
    let defines = |o: &String| {
        o.strip_prefix("-D")
            .is_some_and(|d| d.split('=').next() == Some(name.as_str()))
    };
    if compile.iter().any(defines) {
        return Err((
            format!(
                "`compile` defines `{name}` too, and the sweep defines it once per value: remove -D{name} from `compile`"
            ),
            Some(HeaderField::Top("compile")),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::declaration::Declaration;
    use crate::example::Example;

    const HEADER: &str = r#"problem = "elementwise"
sizes = ["2^20"]
bytes = "2 * n * 4"
[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
[sweep]
STRIDE = [1, 2, 4]
[[launch]]
kernel = "k"
grid = "ceil_div(n, 256 * STRIDE)"
block = 256
args = ["x", "y", "n", "STRIDE"]
"#;

    fn example(header: &str) -> Example {
        let dir = std::env::temp_dir();
        let body = format!(
            "/*+++\n{header}+++*/\nextern \"C\" __global__ void k(const float* x, float* y, unsigned n, unsigned s) {{}}\n"
        );
        Example::from_inline(&dir, "src/ch.md", &dir, &body, 1, "demo").unwrap()
    }

    // A `[sweep]` table reads as its parameter and values in declared
    // order, and an example without one serialises as it always did (no
    // `sweep` key), so committed keys stay.
    #[test]
    fn a_sweep_parses_in_declared_order() {
        let d = Declaration::parse(&HEADER.replace("[1, 2, 4]", "[4, 1, 2]")).unwrap();
        let sweep = d.sweep.as_ref().unwrap();
        assert_eq!(sweep.name(), "STRIDE");
        let values: Vec<u64> = sweep.values().iter().map(|v| v.value).collect();
        assert_eq!(values, [4, 1, 2]);
        assert_eq!(d.chosen(), None);
        let plain = HEADER.replace("[sweep]\nSTRIDE = [1, 2, 4]\n", "").replace(
            "args = [\"x\", \"y\", \"n\", \"STRIDE\"]",
            "args = [\"x\", \"y\", \"n\"]",
        );
        let plain = plain.replace("256 * STRIDE", "256");
        let json = serde_json::to_string(&Declaration::parse(&plain).unwrap()).unwrap();
        assert!(!json.contains("sweep"), "{json}");
    }

    // The measuring and compiling children receive the example as JSON:
    // the sweep must arrive with it, or a child would measure one
    // compilation without its -D and call it the example.
    #[test]
    fn a_sweep_survives_a_json_round_trip() {
        let e = example(HEADER);
        let json = serde_json::to_string(&e).unwrap();
        assert!(json.contains("\"sweep\":{\"STRIDE\":[1,2,4]}"), "{json}");
        let back: Example = serde_json::from_str(&json).unwrap();
        assert_eq!(back, e);
        assert_eq!(back.variants().len(), 3);
    }

    // Each value is its own compilation: the example's options plus
    // -DSTRIDE=VALUE, in declared order; the example itself defines
    // nothing, and one without a sweep is its own only variant.
    #[test]
    fn each_value_compiles_with_its_define() {
        let e = example(HEADER);
        assert!(
            !e.compile_options()
                .iter()
                .any(|o| o.starts_with("-DSTRIDE"))
        );
        let variants = e.variants();
        let defines: Vec<String> = variants
            .iter()
            .map(|(_, v)| v.compile_options().last().unwrap().clone())
            .collect();
        assert_eq!(defines, ["-DSTRIDE=1", "-DSTRIDE=2", "-DSTRIDE=4"]);
        for (value, variant) in &variants {
            let mut base = e.compile_options();
            base.push(value.as_ref().unwrap().define());
            assert_eq!(variant.compile_options(), base);
        }
        let plain = Example {
            declaration: Declaration {
                sweep: None,
                ..e.declaration.clone()
            },
            ..e.clone()
        };
        assert_eq!(plain.variants(), vec![(None, plain.clone())]);
    }

    // Plan expressions and `args` see a value as a variable of its name;
    // the example's plans check at every value.
    #[test]
    fn the_value_is_a_plan_variable() {
        let e = example(HEADER);
        let grids: Vec<u32> = e
            .variants()
            .iter()
            .map(|(_, v)| {
                crate::launch_plan::resolve(&v.declaration, 1 << 20, 132)
                    .unwrap()
                    .launches[0]
                    .grid
            })
            .collect();
        assert_eq!(grids, [4096, 2048, 1024]);
        let (_, four) = &e.variants()[2];
        let plan = crate::launch_plan::resolve(&four.declaration, 1 << 20, 132).unwrap();
        let problem = four.declaration.resolve_problem().unwrap();
        let bound = crate::binding::bind(four, &*problem, &plan).unwrap();
        assert_eq!(
            bound[0][3],
            crate::binding::Binding::Scalar(crate::problem::Scalar::U32(4))
        );
        crate::plan_check::check_as_declared(&e).unwrap();
        // The plan of the whole example (no value chosen) does not know it.
        assert!(crate::launch_plan::resolve(&e.declaration, 1 << 20, 132).is_err());
    }

    // Each way of getting the table wrong is an error at its line (the
    // header's first line is 1) that says what to write.
    #[test]
    fn sweep_mistakes_name_their_line_and_fix() {
        let cases = [
            (
                "STRIDE = [1, 2, 4]",
                "STRIDE = []",
                9,
                "`STRIDE` has no values",
            ),
            (
                "STRIDE = [1, 2, 4]",
                "STRIDE = [1, 2, 1]",
                9,
                "lists 1 twice",
            ),
            (
                "STRIDE = [1, 2, 4]",
                "2STRIDE = [1]",
                9,
                "is not a C identifier",
            ),
            (
                "STRIDE = [1, 2, 4]",
                "n = [1]",
                9,
                "already a name of the plan",
            ),
            (
                "STRIDE = [1, 2, 4]",
                "grid0 = [1]",
                9,
                "already a name of the plan",
            ),
            (
                "STRIDE = [1, 2, 4]",
                "x = [1]",
                9,
                "already a name of the plan",
            ),
            (
                "STRIDE = [1, 2, 4]",
                "STRIDE = [1]\nOTHER = [2]",
                9,
                "sweeps one parameter",
            ),
            ("STRIDE = [1, 2, 4]", "", 8, "the [sweep] table is empty"),
            (
                "STRIDE = [1, 2, 4]",
                "STRIDE = [4294967296]",
                9,
                "past 2^32 - 1",
            ),
            ("STRIDE = [1, 2, 4]", "STRIDE = [-1]", 9, "not valid"),
        ];
        for (from, to, line, want) in cases {
            let err = Declaration::parse(&HEADER.replace(from, to)).unwrap_err();
            assert!(err.to_string().contains(want), "{to}: {err}");
            assert_eq!(err.line(), Some(line), "{to}: {err}");
        }
        let twice = HEADER.replace(
            "bytes = \"2 * n * 4\"",
            "bytes = \"2 * n * 4\"\ncompile = [\"-DSTRIDE=2\"]",
        );
        let err = Declaration::parse(&twice).unwrap_err();
        assert!(err.to_string().contains("remove -DSTRIDE"), "{err}");
        assert_eq!(err.line(), Some(4));
    }
}
