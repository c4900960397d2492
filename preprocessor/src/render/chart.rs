//! The parts every chart of the book is drawn with, at build time with
//! plotters into an inline SVG: the drawing's size, fonts and ink, a
//! log-scaled time panel against a power-of-two axis, lines broken at
//! gaps, one legend under the panels, and the SVG made to fit a page. The
//! peers chart (`crate::artifacts::peers`) and the all-reduce chart
//! (`crate::artifacts::allreduce`) are drawn with them.
//!
//! The SVG suits every mdBook theme: its background is transparent, the
//! series have explicit mid-tone colours readable on light and dark pages,
//! and text, axes and reference lines are drawn in `currentColor` (the
//! page's text colour). It scales with the page (`width="100%"`, viewBox)
//! down to a width where its text is still readable.
//! Without a font backend plotters only estimates text widths; the browser
//! lays the `<text>` out with the page's fonts.

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Why a chart cannot be drawn.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// The report holds no timing at all.
    #[error("no timings to draw")]
    Empty,
    /// plotters failed to draw (its message).
    #[error("{0}")]
    Draw(String),
}

impl ChartError {
    /// plotters' error, as a chart's.
    pub fn draw(e: impl std::fmt::Display) -> Self {
        ChartError::Draw(e.to_string())
    }
}

/// Size of the drawing in SVG units (scaled to the page's width).
pub(crate) const WIDTH: u32 = 960;
pub(crate) const HEIGHT: u32 = 430;
/// Narrower than this, the chart scrolls sideways instead of shrinking
/// its text below reading size (its wrapper scrolls, see `html.rs`).
pub(crate) const MIN_WIDTH: u32 = 600;
/// Height of the legend strip under the panels.
pub(crate) const LEGEND_HEIGHT: u32 = 44;

/// Drawn in this colour, an element ends up in `currentColor`.
pub(crate) const INK: RGBColor = RGBColor(0x01, 0x02, 0x03);
pub(crate) const INK_SVG: &str = "#010203";

/// Font sizes as plotters takes them (it writes `size / 1.24` into the SVG).
pub(crate) const TEXT: u32 = 19;
pub(crate) const SMALL: u32 = 18;
pub(crate) const TITLE: u32 = 21;

/// One implementation's line.
pub(crate) struct Series {
    pub(crate) label: String,
    /// The label the legend falls back to when the full ones do not fit
    /// on one row (a peer's `short` name).
    pub(crate) short: String,
    pub(crate) colour: RGBColor,
    pub(crate) width: u32,
    /// Runs of consecutive sizes with a timing: (log2 N, µs, the figure
    /// of the right-hand panel: GB/s or TFLOP/s).
    pub(crate) runs: Vec<Vec<(f64, f64, f64)>>,
}

/// `#RRGGBB` as a colour (the ink colour, so the page's text colour, when
/// it does not parse; `bench/peers/peers.toml` is checked when read).
pub(crate) fn colour_of(hex: &str) -> RGBColor {
    let byte = |i: usize| {
        hex.get(i..i + 2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
    };
    match (hex.strip_prefix('#').map(|_| ()), byte(1), byte(3), byte(5)) {
        (Some(()), Some(r), Some(g), Some(b)) if hex.len() == 7 => RGBColor(r, g, b),
        _ => INK,
    }
}

/// The N axis: log2 of the sizes, a label at every power of two (every
/// second one when the range is wide).
pub(crate) struct XAxis {
    pub(crate) range: std::ops::Range<f64>,
    pub(crate) ticks: Vec<f64>,
    /// `N (elements)`, or `N (elements per row)` for a row-wise problem.
    pub(crate) label: String,
    /// A tick's label from its log2 value: `2²⁰`.
    pub(crate) format: Box<dyn Fn(&f64) -> String>,
}

pub(crate) fn x_axis(points: &[(f64, f64, f64)]) -> XAxis {
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
        label: "N (elements)".into(),
        format: Box::new(power_label),
    }
}

/// An axis with the ticks given, labelled through the chart's formatter
/// (plotters' own `with_key_points` has no default label formatting).
pub(crate) struct Ticked<R> {
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

pub(crate) fn ticked<R: Ranged<ValueType = f64>>(
    inner: impl Into<R>,
    ticks: Vec<f64>,
) -> Ticked<R> {
    Ticked {
        inner: inner.into(),
        ticks,
    }
}

pub(crate) fn font(size: u32) -> TextStyle<'static> {
    ("sans-serif", size).into_font().color(&INK)
}

/// `2²⁰` for 20, as the book writes powers of two.
fn power_label(v: &f64) -> String {
    crate::powers::superscript(&(v.round() as i64).to_string())
}

/// Tick values of a log axis within `lo..hi`: 1, 2, 5 per decade, or, on
/// a range too narrow for four of those (times within a decade or two),
/// the finer 1–9 per decade, then 1, 1.5, 2, 2.5, 3, 4, … 9: at least
/// four labels where the finest set gives them, so a value can be read.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    const STEPS: [&[f64]; 3] = [
        &[1.0, 2.0, 5.0],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        &[1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
    ];
    let within = |mantissas: &[f64]| {
        let mut out = Vec::new();
        let mut decade = 10f64.powf(lo.log10().floor());
        while decade <= hi {
            for m in mantissas {
                let v = decade * m;
                if v >= lo && v <= hi {
                    out.push(v);
                }
            }
            decade *= 10.0;
        }
        out
    };
    let mut ticks = Vec::new();
    for mantissas in STEPS {
        ticks = within(mantissas);
        if ticks.len() >= 4 {
            break;
        }
    }
    ticks
}

/// A tick value without needless decimals: `5`, `200`, `0.5`.
pub(crate) fn tick_label(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
pub(crate) type DrawResult = Result<(), DrawingAreaErrorKind<std::io::Error>>;

/// The time panel's caption.
pub(crate) const TIME_CAPTION: &str = "median time, µs (log scale)";

/// The panel of median time against N, log–log, one line per series,
/// under `caption`.
pub(crate) fn draw_times(
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
        .x_label_formatter(&*x.format)
        .y_label_formatter(&tick_label)
        .x_desc(&x.label)
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

/// One run of a series: the line and a dot at each measured size.
pub(crate) fn draw_line<'a, X, Y>(
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
pub(crate) fn draw_legend(area: &Area<'_>, series: &[Series]) -> DrawResult {
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

/// Makes plotters' SVG fit a page: scales to the width of its container,
/// takes text colour from the page, has a title, keeps each `<text>` on
/// one line, and holds no blank line (which would end the HTML block it
/// sits in).
pub(crate) fn finish(svg: &str, title: &str) -> String {
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
        assert_eq!(power_label(&30.0), "2³⁰");
        // Times within a decade get finer labels: at least four.
        assert_eq!(log_ticks(77.0, 290.0), [80.0, 90.0, 100.0, 200.0]);
        assert_eq!(log_ticks(110.0, 290.0), [150.0, 200.0, 250.0]);
    }

    // Colours come from the peers list as #RRGGBB; anything else is ink.
    #[test]
    fn peer_colours_are_read_from_hex() {
        assert_eq!(colour_of("#4C8BD6"), RGBColor(0x4C, 0x8B, 0xD6));
        assert_eq!(colour_of("4C8BD6"), INK);
        assert_eq!(colour_of("#4C8BZZ"), INK);
    }
}
