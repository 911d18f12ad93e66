// SPDX-License-Identifier: GPL-3.0-or-later
// The Model tab's what-if of the mask (MaskWhatIfBox, issue 40) in the
// window (real widgets, offscreen) on the tiny reference GPT-2: the choice
// beside the scale what-if runs the model again with every head under the
// mask (the session's result says it, and is the core's pass with that mask
// bit for bit); the selected head's weights from the last token are 0 on
// the keys it hides and a softmax, computed here, of the raw scores of the
// others; the S and W spin boxes show as the choice needs; "as trained"
// brings the intact pass back, bit for bit; opening a model clears it.
#include "guitest.h"
#include "mainwindow.h"
#include "modelcontroller.h"
#include "modelpanel.h"
#include "modelsession.h"
#include "testdata.h"

#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace attnlab;

namespace {

QString tinyFolder()
{
    return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2");
}

bool typeSentence(MainWindow& window, const QString& sentence)
{
    ModelSession* session = window.models()->session();
    QSignalSpy changed(session, &ModelSession::resultChanged);
    QLineEdit* edit = guitest::find<QLineEdit>(window, QStringLiteral("sentenceEdit"));
    if (!edit)
        return false;
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Delete);
    QTest::keyClicks(edit, sentence);
    return QTest::qWaitFor([&] { return !changed.isEmpty() && !session->isComputing(); }, 10000)
           && session->result() && session->sentence() == sentence;
}

// Chooses item `data` of the combo as a user does (activated).
void choose(QComboBox* combo, int data)
{
    const int index = combo->findData(data);
    combo->setCurrentIndex(index);
    emit combo->activated(index);
}

bool sameWeights(const attn::DecoderResult& a, const attn::DecoderResult& b)
{
    for (std::size_t l = 0; l < a.layers.size(); ++l)
        for (std::size_t h = 0; h < a.layers[l].heads.size(); ++h)
            if (!attn::sameBits(a.layers[l].heads[h].weightsMatrix(), b.layers[l].heads[h].weightsMatrix()))
                return false;
    return attn::sameBits(a.lastLogits, b.lastLogits);
}

}  // namespace

class TestModelMaskWhatIf : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void chooseMasks();

private:
    QTemporaryDir settingsDir_;
};

void TestModelMaskWhatIf::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestModelMaskWhatIf::chooseMasks()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelSession* session = window->models()->session();
    ModelPanel* panel = window->models()->panel();
    auto* kind = guitest::find<QComboBox>(*panel, QStringLiteral("modelMaskCombo"));
    auto* sink = guitest::find<QSpinBox>(*panel, QStringLiteral("modelMaskSinkSpin"));
    auto* windowSpin = guitest::find<QSpinBox>(*panel, QStringLiteral("modelMaskWindowSpin"));
    auto* lastRow = guitest::find<QTableWidget>(*panel, QStringLiteral("modelLastRowTable"));
    QVERIFY(kind && sink && windowSpin && lastRow);
    QVERIFY(!kind->isEnabled());  // no model yet

    QSignalSpy opened(session, &ModelSession::modelOpened);
    window->models()->openModel(tinyFolder());
    QVERIFY(opened.wait(10000));
    QTRY_VERIFY(panel->isVisible());
    QVERIFY(kind->isEnabled());
    QCOMPARE(kind->currentText(), QStringLiteral("as trained"));
    QVERIFY(sink->isHidden() && windowSpin->isHidden());
    const QJsonObject c =
        testdata::readJson(QStringLiteral("gpt2/tiny-gpt2/reference.json"))["cases"].toArray()[0].toObject();
    QVERIFY(typeSentence(*window, c["sentence"].toString()));
    const auto intact = session->result();
    QVERIFY(intact->mask == attn::AttentionMask::causal());
    const int n = intact->tokens();
    QVERIFY(n >= 8);

    // A sliding window of 3: the last token sees itself and the two before.
    QSignalSpy changed(session, &ModelSession::resultChanged);
    windowSpin->setValue(3);  // hidden: nothing runs yet
    QVERIFY(!session->maskWhatIf());
    choose(kind, int(attn::AttentionMask::Kind::Sliding));
    QVERIFY(changed.wait(10000));
    QVERIFY(windowSpin->isVisible() && sink->isHidden());
    QVERIFY(session->maskWhatIf() == attn::AttentionMask::sliding(3));
    const auto sliding = session->result();
    QVERIFY(sliding->mask == attn::AttentionMask::sliding(3));
    attn::DecoderRunOptions options;
    options.mask = attn::AttentionMask::sliding(3);
    const auto core = session->model()->decoder->run(sliding->tokenIds, options);
    QVERIFY(core.ok());
    QVERIFY(sameWeights(*sliding, *core));
    // The selected head from the last token.
    const attn::AttentionResult& head =
        sliding->layers[std::size_t(session->selectedLayer())].heads[std::size_t(session->selectedHead())];
    double top = -INFINITY, sum = 0.0;
    for (int j = n - 3; j < n; ++j)
        top = std::max(top, head.scores(n - 1, j) / head.divisor);
    for (int j = n - 3; j < n; ++j)
        sum += std::exp(head.scores(n - 1, j) / head.divisor - top);
    QCOMPARE(lastRow->rowCount(), n);
    for (int j = 0; j < n; ++j) {
        const double shown = lastRow->item(j, 1)->data(Qt::UserRole).toDouble();
        const double want = j < n - 3 ? 0.0 : std::exp(head.scores(n - 1, j) / head.divisor - top) / sum;
        QVERIFY2(std::abs(shown - want) <= 1e-12, qPrintable(QStringLiteral("key %1").arg(j)));
    }

    // Sinks plus a window: the spin boxes of both, each change a new pass.
    choose(kind, int(attn::AttentionMask::Kind::SinkWindow));
    QVERIFY(changed.wait(10000));
    QVERIFY(sink->isVisible() && windowSpin->isVisible());
    // Every control of the what-if line within the 1024-pixel window.
    QCoreApplication::processEvents();
    QVERIFY2(windowSpin->mapTo(window.get(), QPoint(windowSpin->width(), 0)).x() <= window->width(),
             qPrintable(QStringLiteral("W box ends at %1 of %2")
                            .arg(windowSpin->mapTo(window.get(), QPoint(windowSpin->width(), 0)).x())
                            .arg(window->width())));
    sink->setValue(2);
    QVERIFY(changed.wait(10000));
    QVERIFY(session->result()->mask == attn::AttentionMask::sinkWindow(2, 3));
    const attn::AttentionResult& sinks = session->result()->layers[0].heads[0];
    for (int j = 0; j < n; ++j)
        QCOMPARE(sinks.weights(n - 1, j) > 0.0, j < 2 || j >= n - 3);

    // As trained: the intact pass again, bit for bit.
    choose(kind, -1);
    QVERIFY(changed.wait(10000));
    QVERIFY(!session->maskWhatIf());
    QVERIFY(sink->isHidden() && windowSpin->isHidden());
    QVERIFY(session->result()->mask == attn::AttentionMask::causal());
    QVERIFY(sameWeights(*session->result(), *intact));

    // Opening a model clears the what-if.
    choose(kind, int(attn::AttentionMask::Kind::Causal));
    QVERIFY(changed.wait(10000));
    QVERIFY(session->maskWhatIf() == attn::AttentionMask::causal());
    QVERIFY(sameWeights(*session->result(), *intact));
    window->models()->openModel(tinyFolder());
    QVERIFY(opened.wait(10000));
    QVERIFY(!session->maskWhatIf());
    QCOMPARE(kind->currentData().toInt(), -1);
}

QTEST_MAIN(TestModelMaskWhatIf)
#include "tst_modelmaskwhatif.moc"
