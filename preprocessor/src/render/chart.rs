//! The chart of a peers comparison, drawn at build time with plotters into
//! an inline SVG: median time against N (log–log) beside GB/s against N
//! with the measured ceiling of the problem (read, or copy for kernels that
//! write as much as they read) and the datasheet peak as horizontal
//! lines, one line per implementation and one legend under both panels.
//!
//! The SVG suits every mdBook theme: its background is transparent, the
//! series have explicit mid-tone colours readable on light and dark pages,
//! and text, axes and reference lines are drawn in `currentColor` (the
//! page's text colour). It scales with the page (`width="100%"`, viewBox)
//! down to a width where its text is still readable.
//! Without a font backend plotters only estimates text widths; the browser
//! lays the `<text>` out with the page's fonts. The all-reduce chart
//! ([`super::allreduce_chart`]) is drawn with the same parts.

use super::reports::{gbs, ours_label, peers_of};
use cuda_measured_core::peers::{Report, Timing};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Size of the drawing in SVG units (scaled to the page's width).
pub(super) const WIDTH: u32 = 960;
pub(super) const HEIGHT: u32 = 430;
/// Narrower than this, the chart scrolls sideways instead of shrinking
/// its text below reading size (its wrapper scrolls, see `html.rs`).
const MIN_WIDTH: u32 = 600;
/// Height of the legend strip under the panels.
pub(super) const LEGEND_HEIGHT: u32 = 44;

/// Drawn in this colour, an element ends up in `currentColor`.
pub(super) const INK: RGBColor = RGBColor(0x01, 0x02, 0x03);
const INK_SVG: &str = "#010203";

/// Font sizes as plotters takes them (it writes `size / 1.24` into the SVG).
const TEXT: u32 = 19;
pub(super) const SMALL: u32 = 18;
pub(super) const TITLE: u32 = 21;

/// One implementation's line.
pub(super) struct Series {
    pub(super) label: String,
    /// The label the legend falls back to when the full ones do not fit
    /// on one row (a peer's `short` name).
    pub(super) short: String,
    pub(super) colour: RGBColor,
    pub(super) width: u32,
    /// Runs of consecutive sizes with a timing: (log2 N, µs, GB/s).
    pub(super) runs: Vec<Vec<(f64, f64, f64)>>,
}

/// Mid-tone colours, readable on white and on mdBook's dark themes.
const OURS_COLOUR: RGBColor = RGBColor(0xE8, 0x71, 0x0A);
/// `#RRGGBB` as a colour (the ink colour, so the page's text colour, when
/// it does not parse; `bench/peers/peers.toml` is checked when read).
pub(super) fn colour_of(hex: &str) -> RGBColor {
    let byte = |i: usize| {
        hex.get(i..i + 2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
    };
    match (hex.strip_prefix('#').map(|_| ()), byte(1), byte(3), byte(5)) {
        (Some(()), Some(r), Some(g), Some(b)) if hex.len() == 7 => RGBColor(r, g, b),
        _ => INK,
    }
}

/// The chart of `report` as an SVG element, or why it cannot be drawn.
pub fn peers_svg(report: &Report) -> Result<String, String> {
    let series = series_of(report);
    let points: Vec<(f64, f64, f64)> = series
        .iter()
        .flat_map(|s| s.runs.iter().flatten().copied())
        .collect();
    if points.is_empty() {
        return Err("no timings to draw".into());
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        let (plots, legend) = root.split_vertically(HEIGHT - LEGEND_HEIGHT);
        let panels = plots.split_evenly((1, 2));
        let mut x = x_axis(&points);
        if cuda_measured_core::problem::lookup(&report.problem).is_some_and(|p| p.rowwise()) {
            x.label = "N (elements per row)";
        }
        draw_times(&panels[0], &series, &x, &points, TIME_CAPTION).map_err(|e| e.to_string())?;
        draw_bandwidth(&panels[1], &series, &x, &points, report).map_err(|e| e.to_string())?;
        draw_legend(&legend, &series).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(finish(&svg, &title_of(report, &series)))
}

/// The lines to draw: ours first, then the charted peers present.
fn series_of(report: &Report) -> Vec<Series> {
    let runs_of = |pick: &dyn Fn(&cuda_measured_core::peers::Row) -> Option<&Timing>| {
        let mut runs: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new()];
        for row in &report.rows {
            match pick(row) {
                Some(t) if t.median_us > 0.0 && row.n.0 > 0 => runs
                    .last_mut()
                    .expect("runs start with one")
                    .push(((row.n.0 as f64).log2(), t.median_us, gbs(row, t))),
                _ => runs.push(Vec::new()),
            }
        }
        runs.retain(|r| !r.is_empty());
        runs
    };
    let mut out = vec![Series {
        label: ours_label(report),
        short: ours_label(report),
        colour: OURS_COLOUR,
        width: 3,
        runs: runs_of(&|row| row.ours.as_ref()),
    }];
    for peer in peers_of(report).into_iter().filter(|p| p.chart) {
        let runs = runs_of(&|row| row.peers.get(&peer.key));
        if runs.is_empty() {
            continue;
        }
        out.push(Series {
            label: peer.label,
            short: peer.short,
            colour: colour_of(&peer.colour),
            width: 2,
            runs,
        });
    }
    out.retain(|s| !s.runs.is_empty());
    out
}

/// The N axis: log2 of the sizes, a label at every power of two (every
/// second one when the range is wide).
pub(super) struct XAxis {
    pub(super) range: std::ops::Range<f64>,
    pub(super) ticks: Vec<f64>,
    /// `N (elements)`, or `N (elements per row)` for a row-wise problem.
    pub(super) label: &'static str,
    /// A tick's label from its log2 value: `2^20`.
    pub(super) format: fn(&f64) -> String,
}

fn x_axis(points: &[(f64, f64, f64)]) -> XAxis {
    let lo = points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let hi = points.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let step = if hi - lo > 5.0 { 2.0 } else { 1.0 };
    let first = (lo / step).ceil() * step;
    let ticks = (0..)
        .map(|i| first + step * f64::from(i))
        .take_while(|t| *t <= hi + 1e-9)
        .collect();
    XAxis {
        range: (lo - 0.5)..(hi + 0.5),
        ticks,
        label: "N (elements)",
        format: power_label,
    }
}

/// An axis with the ticks given, labelled through the chart's formatter
/// (plotters' own `with_key_points` has no default label formatting).
pub(super) struct Ticked<R> {
    inner: R,
    ticks: Vec<f64>,
}

impl<R: Ranged<ValueType = f64>> Ranged for Ticked<R> {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, _hint: Hint) -> Vec<f64> {
        self.ticks.clone()
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }
}

pub(super) fn ticked<R: Ranged<ValueType = f64>>(
    inner: impl Into<R>,
    ticks: Vec<f64>,
) -> Ticked<R> {
    Ticked {
        inner: inner.into(),
        ticks,
    }
}

pub(super) fn font(size: u32) -> TextStyle<'static> {
    ("sans-serif", size).into_font().color(&INK)
}

/// `2^20` for 20.
fn power_label(v: &f64) -> String {
    format!("2^{}", v.round() as i64)
}

/// Tick values of a log axis: 1, 2, 5 per decade within `range`.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut out = Vec::new();
    let mut decade = 10f64.powf(lo.log10().floor());
    while decade <= hi {
        for m in [1.0, 2.0, 5.0] {
            let v = decade * m;
            if v >= lo && v <= hi {
                out.push(v);
            }
        }
        decade *= 10.0;
    }
    out
}

/// A tick value without needless decimals: `5`, `200`, `0.5`.
pub(super) fn tick_label(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
pub(super) type DrawResult = Result<(), DrawingAreaErrorKind<std::io::Error>>;

/// The time panel's caption.
pub(super) const TIME_CAPTION: &str = "median time, µs (log scale)";

/// The panel of median time against N, log–log, one line per series,
/// under `caption`.
pub(super) fn draw_times(
    area: &Area<'_>,
    series: &[Series],
    x: &XAxis,
    points: &[(f64, f64, f64)],
    caption: &str,
) -> DrawResult {
    let lo = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min) / 1.3;
    let hi = points.iter().map(|p| p.1).fold(0.0, f64::max) * 1.3;
    let mut chart = ChartBuilder::on(area)
        .caption(caption, font(TITLE))
        .margin(12)
        .x_label_area_size(54)
        .y_label_area_size(66)
        .build_cartesian_2d(
            ticked::<RangedCoordf64>(x.range.clone(), x.ticks.clone()),
            ticked::<LogCoord<f64>>((lo..hi).log_scale(), log_ticks(lo, hi)),
        )?;
    chart
        .configure_mesh()
        .x_label_formatter(&x.format)
        .y_label_formatter(&tick_label)
        .x_desc(x.label)
        .label_style(font(SMALL))
        .axis_desc_style(font(SMALL))
        .axis_style(INK.mix(0.55))
        .bold_line_style(INK.mix(0.12))
        .light_line_style(TRANSPARENT)
        .draw()?;
    // Ours last, on top of the peers.
    for s in series.iter().rev() {
        for run in &s.runs {
            let line: Vec<(f64, f64)> = run.iter().map(|p| (p.0, p.1)).collect();
            draw_line(&mut chart, s, line)?;
        }
    }
    Ok(())
}

fn draw_bandwidth(
    area: &Area<'_>,
    series: &[Series],
    x: &XAxis,
    points: &[(f64, f64, f64)],
    report: &Report,
) -> DrawResult {
    // The ceiling of the problem: read-only for a sum, copy (read plus
    // write) for a kernel that writes as much as it reads.
    let copy = cuda_measured_core::problem::lookup(&report.problem)
        .is_some_and(|p| p.bound() == cuda_measured_core::problem::Bound::Copy);
    let read = report
        .ceilings
        .as_ref()
        .map(|c| if copy { c.copy_gbs } else { c.read_gbs });
    let ceiling_label = if copy {
        "copy ceiling (measured, 4 GiB)"
    } else {
        "read ceiling (measured)"
    };
    let peak = (report.peak_gbs > 0.0).then_some(report.peak_gbs);
    let top = points
        .iter()
        .map(|p| p.2)
        .chain(read)
        .chain(peak)
        .fold(0.0, f64::max)
        * 1.12;
    let mut chart = ChartBuilder::on(area)
        .caption("GB/s", font(TITLE))
        .margin(12)
        .x_label_area_size(54)
        .y_label_area_size(66)
        .build_cartesian_2d(
            ticked::<RangedCoordf64>(x.range.clone(), x.ticks.clone()),
            0.0..top,
        )?;
    chart
        .configure_mesh()
        .x_label_formatter(&x.format)
        .y_label_formatter(&tick_label)
        .y_labels(7)
        .x_desc(x.label)
        .label_style(font(SMALL))
        .axis_desc_style(font(SMALL))
        .axis_style(INK.mix(0.55))
        .bold_line_style(INK.mix(0.12))
        .light_line_style(TRANSPARENT)
        .draw()?;
    let (x0, x1) = (x.range.start, x.range.end);
    let label_x = x0 + 0.15;
    if let Some(peak) = peak {
        chart.draw_series(DashedLineSeries::new(
            vec![(x0, peak), (x1, peak)],
            9,
            6,
            INK.mix(0.7).stroke_width(2),
        ))?;
        chart.draw_series(std::iter::once(Text::new(
            "datasheet peak",
            (label_x, peak),
            font(SMALL).pos(Pos::new(HPos::Left, VPos::Bottom)),
        )))?;
    }
    if let Some(read) = read {
        chart.draw_series(LineSeries::new(
            vec![(x0, read), (x1, read)],
            INK.mix(0.7).stroke_width(2),
        ))?;
        // Above the line at the right end: our lines run just under the
        // ceiling, and the datasheet peak's label sits at the left.
        chart.draw_series(std::iter::once(Text::new(
            ceiling_label,
            (x1 - 0.15, read),
            font(SMALL).pos(Pos::new(HPos::Right, VPos::Bottom)),
        )))?;
    }
    for s in series.iter().rev() {
        for run in &s.runs {
            let line: Vec<(f64, f64)> = run.iter().map(|p| (p.0, p.2)).collect();
            draw_line(&mut chart, s, line)?;
        }
    }
    Ok(())
}

/// One run of a series: the line and a dot at each measured size.
pub(super) fn draw_line<'a, X, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    s: &Series,
    line: Vec<(f64, f64)>,
) -> DrawResult
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    chart.draw_series(LineSeries::new(
        line.iter().copied(),
        s.colour.stroke_width(s.width),
    ))?;
    chart.draw_series(
        line.into_iter()
            .map(|p| Circle::new(p, s.width + 1, s.colour.filled())),
    )?;
    Ok(())
}

/// One row of legend entries, centred under both panels.
pub(super) fn draw_legend(area: &Area<'_>, series: &[Series]) -> DrawResult {
    const SWATCH: i32 = 28;
    const GAP: i32 = 10;
    const SPACING: i32 = 34;
    // Roughly the width of sans-serif text at this size.
    let text_width =
        |label: &str| (label.chars().count() as f64 * 0.52 * f64::from(TEXT) / 1.24) as i32;
    let (w, h) = area.dim_in_pixel();
    let layout = |label: &dyn Fn(&Series) -> String| -> (Vec<String>, Vec<i32>, i32) {
        let labels: Vec<String> = series.iter().map(label).collect();
        let widths: Vec<i32> = labels
            .iter()
            .map(|l| SWATCH + GAP + text_width(l))
            .collect();
        let total = widths.iter().sum::<i32>() + SPACING * (widths.len() as i32 - 1);
        (labels, widths, total)
    };
    // The full labels when they fit on one row, else the short names
    // (the table under the chart gives the full ones).
    let (mut labels, mut widths, mut total) = layout(&|s: &Series| s.label.clone());
    if total > w as i32 {
        (labels, widths, total) = layout(&|s: &Series| s.short.clone());
    }
    let y = h as i32 / 2;
    let mut x = ((w as i32 - total) / 2).max(0);
    for ((s, width), label) in series.iter().zip(widths).zip(labels) {
        area.draw(&PathElement::new(
            vec![(x, y), (x + SWATCH, y)],
            s.colour.stroke_width(s.width),
        ))?;
        area.draw(&Circle::new(
            (x + SWATCH / 2, y),
            s.width + 1,
            s.colour.filled(),
        ))?;
        area.draw(&Text::new(
            label,
            (x + SWATCH + GAP, y),
            font(TEXT).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
        x += width + SPACING;
    }
    Ok(())
}

/// What the chart shows, for its `<title>` (screen readers, tooltips).
fn title_of(report: &Report, series: &[Series]) -> String {
    let names: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
    format!(
        "{}: median time and GB/s against N for {} on {}",
        report.problem,
        names.join(", "),
        report.gpu
    )
}

/// Makes plotters' SVG fit a page: scales to the width of its container,
/// takes text colour from the page, has a title, keeps each `<text>` on
/// one line, and holds no blank line (which would end the HTML block it
/// sits in).
pub(super) fn finish(svg: &str, title: &str) -> String {
    let body = svg
        .split_once('\n')
        .map_or(svg, |(_, rest)| rest)
        .replace(INK_SVG, "currentColor");
    let mut lines = body.lines().filter(|l| !l.trim().is_empty());
    let mut body = Vec::new();
    while let Some(line) = lines.next() {
        // plotters writes `<text ...>`, the text and `</text>` on three lines.
        if line.starts_with("<text") && line.ends_with('>') {
            let mut joined = line.to_string();
            for next in lines.by_ref() {
                joined.push_str(next.trim());
                if next.trim_end().ends_with("</text>") {
                    break;
                }
            }
            body.push(joined);
        } else {
            body.push(line.to_string());
        }
    }
    format!(
        "<svg class=\"cm-chart\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"100%\" role=\"img\" style=\"height: auto; min-width: {MIN_WIDTH}px; max-width: {WIDTH}px\" xmlns=\"http://www.w3.org/2000/svg\">\n<title>{}</title>\n{}",
        escape(title),
        body.join("\n")
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::reports::tests::peers_report;

    // The chart is one responsive SVG in the page's colours: every label a
    // reader needs is text, nothing is black on a dark page, no blank line.
    #[test]
    fn chart_is_themable_text() {
        let svg = peers_svg(&peers_report()).unwrap();
        assert!(
            svg.starts_with("<svg class=\"cm-chart\" viewBox=\"0 0 960 430\" width=\"100%\""),
            "{svg}"
        );
        assert!(svg.trim_end().ends_with("</svg>"), "{svg}");
        for text in [
            ">2^16<",
            ">2^28<",
            ">read ceiling (measured)<",
            ">datasheet peak<",
            ">fast_reduce (ours)<",
            ">CUB DeviceReduce::Sum<",
            ">torch.sum<",
            ">cupy.sum<",
            ">median time, µs (log scale)<",
            ">GB/s<",
        ] {
            assert!(svg.contains(text), "{text} not in the chart");
        }
        assert!(svg.contains("fill=\"currentColor\""));
        assert!(!svg.contains(INK_SVG));
        assert!(
            !svg.contains("#000000"),
            "black would vanish on dark themes"
        );
        assert!(!svg.contains("<rect"), "the background stays transparent");
        assert!(!svg.lines().any(|l| l.trim().is_empty()));
    }

    // Sizes without a figure break the line instead of bridging it.
    #[test]
    fn gaps_split_lines() {
        let mut report = peers_report();
        let mut middle = report.rows[1].clone();
        middle.n = cuda_measured_core::size::Size(1 << 20);
        middle.ours = None;
        let mut last = report.rows[1].clone();
        last.n = cuda_measured_core::size::Size(1 << 30);
        report.rows.insert(1, middle);
        report.rows.push(last);
        let series = series_of(&report);
        assert_eq!(series[0].label, "fast_reduce (ours)");
        let runs: Vec<usize> = series[0].runs.iter().map(Vec::len).collect();
        assert_eq!(runs, [2]);
        let cub: Vec<usize> = series[1].runs.iter().map(Vec::len).collect();
        assert_eq!(cub, [4]);
        assert_eq!(
            series.iter().map(|s| s.label.as_str()).collect::<Vec<_>>(),
            [
                "fast_reduce (ours)",
                "CUB DeviceReduce::Sum",
                "torch.sum",
                "cupy.sum"
            ]
        );
    }

    // Ticks: powers of two on N, 1-2-5 per decade on time.
    #[test]
    fn ticks() {
        let axis = x_axis(&[(16.0, 1.0, 1.0), (30.0, 1.0, 1.0)]);
        assert_eq!(axis.ticks, [16.0, 18.0, 20.0, 22.0, 24.0, 26.0, 28.0, 30.0]);
        assert_eq!(x_axis(&[(20.0, 1.0, 1.0), (28.0, 1.0, 1.0)]).ticks.len(), 5);
        assert_eq!(x_axis(&[(20.0, 1.0, 1.0), (24.0, 1.0, 1.0)]).ticks.len(), 5);
        assert_eq!(
            log_ticks(4.5, 1300.0),
            [5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]
        );
        assert_eq!(tick_label(&200.0), "200");
        assert_eq!(power_label(&30.0), "2^30");
    }

    // Colours come from the peers list as #RRGGBB; anything else is ink.
    #[test]
    fn peer_colours_are_read_from_hex() {
        assert_eq!(colour_of("#4C8BD6"), RGBColor(0x4C, 0x8B, 0xD6));
        assert_eq!(colour_of("4C8BD6"), INK);
        assert_eq!(colour_of("#4C8BZZ"), INK);
    }
}
