//! Figures in prose: `{{#measured}}`, `{{#ratio}}`, `{{#ladder}}`, `{{#gpu}}`.

use crate::book_test::BookTest;

// Directives read the same records as the panels, across chapters; data
// that is not measured shows a visible marker; code stays literal.
#[test]
fn directives_render_figures_and_markers() {
    BookTest::snapshot_fixture("directives");
}
