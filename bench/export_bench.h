// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace bench {
// The pipeline figure (ViewExporter, ExportView::Pipeline) as a 1920 x 1080
// PNG for a sentence of n tokens: exporter built from a computed snapshot,
// picture drawn and encoded, file written. Needs a QApplication.
void runExportBench(int n);
}  // namespace bench
