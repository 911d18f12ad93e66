// SPDX-License-Identifier: GPL-3.0-or-later
// ModelSession over the tiny reference checkpoints (tests/data/gpt2): the
// reference case's token ids, every head's weights (1e-5) and the top-5
// logits (1e-4 relative) through the session's worker; a what-if "none" on
// one head against a softmax of its raw scores done here; a superseded
// request never shown; a bad folder keeping the previous model; too many
// tokens; the temperature as softmax(logits / T) over the vocabulary; on
// the Llama family's (tests/data/llama) the score-range readouts, the
// QK-norm what-if and the selected head's rotation.

#include "modelfamilies.h"
#include "modelsession.h"
#include "keyvaluesharing.h"
#include "rotaryselection.h"
#include "statistics.h"
#include "testdata.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <future>
#include <vector>

using attnlab::ModelSession;

namespace {

QString folder(const QString& name)
{
    return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/") + name;
}

QJsonObject referenceCase(const QString& name, int index)
{
    return testdata::readJson(QStringLiteral("gpt2/%1/reference.json").arg(name))["cases"]
        .toArray()[index]
        .toObject();
}

std::vector<int> ids(const QJsonValue& array)
{
    std::vector<int> out;
    for (const QJsonValue& v : array.toArray())
        out.push_back(v.toInt());
    return out;
}

bool open(ModelSession& session, const QString& path)
{
    QSignalSpy opened(&session, &ModelSession::modelOpened);
    session.openModel(path);
    return opened.wait(10000);
}

bool setSentence(ModelSession& session, const QString& sentence)
{
    QSignalSpy changed(&session, &ModelSession::resultChanged);
    session.setSentence(sentence);
    return changed.wait(10000);
}

// Causal softmax of raw scores / divisor, row by row, in a plain loop.
attn::Matrix causalSoftmax(const attn::Matrix& scores, double divisor)
{
    const Eigen::Index n = scores.rows();
    attn::Matrix out = attn::Matrix::Zero(n, n);
    for (Eigen::Index i = 0; i < n; ++i) {
        double top = -INFINITY;
        for (Eigen::Index j = 0; j <= i; ++j)
            top = std::max(top, scores(i, j) / divisor);
        double sum = 0.0;
        for (Eigen::Index j = 0; j <= i; ++j)
            sum += std::exp(scores(i, j) / divisor - top);
        for (Eigen::Index j = 0; j <= i; ++j)
            out(i, j) = std::exp(scores(i, j) / divisor - top) / sum;
    }
    return out;
}

}  // namespace

class TestModelSession : public QObject {
    Q_OBJECT

private slots:
    void reference_data();
    void reference();
    void adoptedModelIsNotReadAgain();
    void whatIfOneHead();
    void whatIfEveryLayer();
    void supersededNeverShows();
    void supersededIsCancelled();
    void badFolderKeepsModel();
    void tooManyTokens();
    void mapBudget();
    void temperature();
    void keyValueSharingInWords();
    void scoreRangesAndQkNorm();
    void rotarySelection();
};

void TestModelSession::reference_data()
{
    QTest::addColumn<QString>("checkpoint");
    QTest::newRow("F32") << QStringLiteral("tiny-gpt2");
    QTest::newRow("F16 prefixed") << QStringLiteral("tiny-gpt2-lmhead-f16");
}

void TestModelSession::reference()
{
    QFETCH(QString, checkpoint);
    ModelSession session;
    QSignalSpy progress(&session, &ModelSession::loadProgress);
    QVERIFY(open(session, folder(checkpoint)));
    QVERIFY(!session.isLoading());
    QCOMPARE(progress.count(), 2);
    QCOMPARE(progress.first().at(0).toInt(), 0);
    QCOMPARE(progress.last().at(0).toInt(), 1);
    QCOMPARE(progress.last().at(1).toInt(), 1);
    QCOMPARE(session.modelFolder(), folder(checkpoint));
    const QJsonObject c = referenceCase(checkpoint, 0);
    const QJsonObject config =
        testdata::readJson(QStringLiteral("gpt2/%1/reference.json").arg(checkpoint))["config"].toObject();
    const int nLayer = config["n_layer"].toInt();
    const int nHead = config["n_head"].toInt();
    QCOMPARE(session.config().layers, nLayer);
    QCOMPARE(session.config().heads, nHead);
    // The model in one line, as the Model tab shows it.
    const int width = config["n_embd"].toInt();
    QCOMPARE(
        session.modelSummary(),
        QStringLiteral("GPT-2: a causal decoder model with %1 layers of %2 heads (head_dim %3), width %4, "
                       "%5 positions, %6; K/V cache %7 per token")
            .arg(nLayer)
            .arg(nHead)
            .arg(width / nHead)
            .arg(width)
            .arg(config["n_positions"].toInt())
            .arg(checkpoint == QLatin1String("tiny-gpt2") ? QStringLiteral("F32") : QStringLiteral("F16"))
            // A key and a value of the width's numbers per layer, 2 x n_layer x
            // n_embd: 2 x 2 x 16 in F32 (4 bytes) and 2 x 3 x 8 in F16 (2 bytes).
            .arg(checkpoint == QLatin1String("tiny-gpt2") ? QStringLiteral("256 bytes")
                                                          : QStringLiteral("96 bytes")));
    QVERIFY(setSentence(session, c["sentence"].toString()));
    QVERIFY(!session.isComputing());
    QVERIFY(session.problem().isEmpty());
    const std::vector<int> expectedIds = ids(c["token_ids"]);
    QCOMPARE(session.result()->tokenIds, expectedIds);
    QCOMPARE(int(session.resultTokens().size()), int(expectedIds.size()));
    QCOMPARE(session.resultTokens()[5].display, QStringLiteral("␣cinema"));

    const QJsonArray layers = c["layers"].toArray();
    QCOMPARE(int(layers.size()), nLayer);
    for (int l = 0; l < nLayer; ++l)
        for (int h = 0; h < nHead; ++h) {
            const attn::AttentionResult* head = session.head(l, h);
            QVERIFY(head);
            const attn::Matrix expected =
                testdata::toMatrix(layers[l].toObject()["heads"].toArray()[h].toObject()["weights"]);
            QVERIFY2(testdata::maxAbsDiff(head->weightsMatrix(), expected) <= 1e-5,
                     qPrintable(QStringLiteral("layer %1 head %2").arg(l).arg(h)));
        }
    // The lesson's ranking: every head's weight from the last token to "cinema".
    const attn::Matrix toCinema = session.weightsFromLast(5);
    QCOMPARE(int(toCinema.rows()), nLayer);
    QCOMPARE(int(toCinema.cols()), nHead);
    const int last = int(expectedIds.size()) - 1;
    for (int l = 0; l < nLayer; ++l)
        for (int h = 0; h < nHead; ++h)
            QVERIFY(std::abs(toCinema(l, h)
                             - layers[l]
                                   .toObject()["heads"]
                                   .toArray()[h]
                                   .toObject()["weights"]
                                   .toArray()[last]
                                   .toArray()[5]
                                   .toDouble())
                    <= 1e-5);
    QCOMPARE(session.weightsFromLast(last + 1).size(), 0);
    QVERIFY(!session.head(nLayer, 0));
    QVERIFY(!session.head(0, nHead));

    const QJsonArray top5 = c["last_logits_top5"].toArray();
    QCOMPARE(int(session.nextTokens().size()), ModelSession::kNextTokens);
    for (int i = 0; i < 5; ++i) {
        const QJsonObject e = top5[i].toObject();
        QCOMPARE(session.nextTokens()[std::size_t(i)].id, e["id"].toInt());
        const double logit = e["logit"].toDouble();
        QVERIFY(std::abs(session.nextTokens()[std::size_t(i)].logit - logit) <= 1e-4 * std::abs(logit));
    }
}

// A model read already (the command line's --model DIR) is shown as it is:
// the session holds that very object, reads no file (the folder is gone),
// and its pass is the pass of a model opened from the folder, bit for bit.
void TestModelSession::adoptedModelIsNotReadAgain()
{
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("tiny-gpt2"));
    QVERIFY(QDir().mkpath(copy));
    const QDir source(folder(QStringLiteral("tiny-gpt2")));
    for (const QString& name : source.entryList(QDir::Files))
        QVERIFY(QFile::copy(source.filePath(name), copy + '/' + name));
    attn::Expected<attnlab::ModelFolder> read = attnlab::readModelFolder(copy);
    QVERIFY(read.ok());
    auto model = std::make_shared<const attnlab::ModelFolder>(std::move(read.value()));
    QVERIFY(QDir(copy).removeRecursively());

    ModelSession adopted;
    QSignalSpy opened(&adopted, &ModelSession::modelOpened);
    adopted.adoptModel(model);
    QVERIFY(adopted.isLoading());
    QVERIFY(opened.wait(10000));
    QVERIFY(!adopted.isLoading());
    QCOMPARE(adopted.model().get(), model.get());
    QCOMPARE(adopted.modelFolder(), copy);
    const QString sentence = referenceCase(QStringLiteral("tiny-gpt2"), 0)["sentence"].toString();
    QVERIFY(setSentence(adopted, sentence));

    ModelSession opening;
    QVERIFY(open(opening, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(opening, sentence));
    QCOMPARE(adopted.result()->tokenIds, opening.result()->tokenIds);
    for (int l = 0; l < adopted.config().layers; ++l)
        for (int h = 0; h < adopted.config().heads; ++h)
            QVERIFY(attn::sameBits(adopted.head(l, h)->weightsMatrix(), opening.head(l, h)->weightsMatrix()));
    QVERIFY(attn::sameBits(attn::Matrix(adopted.result()->lastLogits),
                           attn::Matrix(opening.result()->lastLogits)));
}

void TestModelSession::whatIfOneHead()
{
    ModelSession session;
    QVERIFY(open(session, folder(QStringLiteral("tiny-gpt2"))));
    const QString sentence = referenceCase(QStringLiteral("tiny-gpt2"), 0)["sentence"].toString();
    QVERIFY(setSentence(session, sentence));
    const auto before = session.result();

    QSignalSpy selected(&session, &ModelSession::selectionChanged);
    session.selectHead(1, 2);
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.first().at(0).toInt(), 1);
    QCOMPARE(selected.first().at(1).toInt(), 2);
    QCOMPARE(session.selectedScaleMode(), attn::ScaleMode::SqrtDk);
    QCOMPARE(session.selectedDivisor(), 2.0);  // sqrt(16 / 4)

    QSignalSpy changed(&session, &ModelSession::resultChanged);
    QVERIFY(session.setScale(attn::ScaleMode::None, 0.0, attnlab::ScaleScope::ThisHead).ok());
    QVERIFY(session.isComputing());
    QVERIFY(changed.wait(10000));
    const auto after = session.result();
    QVERIFY(after != before);
    QCOMPARE(session.selectedScaleMode(), attn::ScaleMode::None);
    QCOMPARE(session.divisors().at(1, 2), 1.0);
    QCOMPARE(session.divisors().at(1, 1), 2.0);
    QCOMPARE(session.divisors().at(0, 2), 2.0);

    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 4; ++h) {
            const attn::Matrix& w = after->layers[std::size_t(l)].heads[std::size_t(h)].weightsMatrix();
            const attn::Matrix& old = before->layers[std::size_t(l)].heads[std::size_t(h)].weightsMatrix();
            if (l == 1 && h == 2) {
                const attn::Matrix& raw = before->layers[1].heads[2].scores;
                QVERIFY(testdata::maxAbsDiff(w, causalSoftmax(raw, 1.0)) <= 1e-12);
                QVERIFY(testdata::maxAbsDiff(w, old) > 1e-3);
            } else {
                QCOMPARE(testdata::maxAbsDiff(w, old), 0.0);
            }
        }
    // The logits follow the changed head.
    QVERIFY(std::abs(after->lastLogits[0] - before->lastLogits[0]) > 0.0);

    QVERIFY(!session.setScale(attn::ScaleMode::Custom, 0.0, attnlab::ScaleScope::ThisHead).ok());
    QCOMPARE(session.divisors().at(1, 2), 1.0);
    QVERIFY(!session.isComputing());

    // A custom divisor equal to sqrt(head_dim) (2 here) is still the custom
    // one the user chose, not "as trained": the panel keeps its divisor box.
    QVERIFY(session.setScale(attn::ScaleMode::Custom, 2.0, attnlab::ScaleScope::ThisHead).ok());
    QVERIFY(changed.wait(10000));
    QCOMPARE(session.divisors().at(1, 2), 2.0);
    QCOMPARE(session.selectedScaleMode(), attn::ScaleMode::Custom);
    session.selectHead(1, 1);
    QCOMPARE(session.selectedScaleMode(), attn::ScaleMode::SqrtDk);
    session.resetScale();
    session.selectHead(1, 2);
    QCOMPARE(session.selectedScaleMode(), attn::ScaleMode::SqrtDk);
    QVERIFY(changed.wait(10000));
}

void TestModelSession::whatIfEveryLayer()
{
    ModelSession session;
    QVERIFY(open(session, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(session, QStringLiteral("Jane is going to the cinema")));
    const auto before = session.result();
    QSignalSpy changed(&session, &ModelSession::resultChanged);
    QVERIFY(session.setScale(attn::ScaleMode::Custom, 8.0, attnlab::ScaleScope::AllLayers).ok());
    QVERIFY(changed.wait(10000));
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 4; ++h)
            QCOMPARE(session.divisors().at(l, h), 8.0);
    // Layer 0 sees the same input: its weights are the softmax of its raw scores / 8.
    QVERIFY(testdata::maxAbsDiff(session.head(0, 3)->weightsMatrix(),
                                 causalSoftmax(before->layers[0].heads[3].scores, 8.0))
            <= 1e-12);

    session.resetScale();
    QVERIFY(changed.wait(10000));
    QCOMPARE(session.divisors().at(1, 3), 2.0);
    QCOMPARE(
        testdata::maxAbsDiff(session.head(1, 3)->weightsMatrix(), before->layers[1].heads[3].weightsMatrix()),
        0.0);
}

void TestModelSession::supersededNeverShows()
{
    ModelSession session;
    QVERIFY(open(session, folder(QStringLiteral("tiny-gpt2"))));
    const QJsonObject c = referenceCase(QStringLiteral("tiny-gpt2"), 0);
    std::vector<std::vector<int>> shown;
    connect(&session, &ModelSession::resultChanged, this,
            [&] { shown.push_back(session.result()->tokenIds); });
    QSignalSpy changed(&session, &ModelSession::resultChanged);
    session.setSentence(QStringLiteral("Jane"));
    session.setSentence(QStringLiteral("Jane is"));
    session.setSentence(c["sentence"].toString());
    QVERIFY(session.isComputing());
    QVERIFY(changed.wait(10000));
    QVERIFY(!session.isComputing());
    // Every older request's outcome was queued before the last one's (one
    // worker thread, in order), so by now it was dropped or never computed.
    QCOMPARE(int(shown.size()), 1);
    QCOMPARE(shown.front(), ids(c["token_ids"]));
}

void TestModelSession::supersededIsCancelled()
{
    ModelSession session;
    QVERIFY(open(session, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(session, QStringLiteral("Jane is")));
    QCOMPARE(session.cancelledPasses(), 0);  // a pass no one superseded ran to its end

    // The first pass is held at its start until the newer request is made,
    // so that it is the one in flight when superseded; the tiny model's
    // pass would otherwise end before the test could catch it.
    std::promise<void> started;
    std::promise<void> go;
    const std::shared_future<void> released = go.get_future().share();
    std::atomic<int> passes{0};
    session.setPassHook([&] {
        if (passes++ == 0) {
            started.set_value();
            released.wait();
        }
    });
    const QJsonObject c = referenceCase(QStringLiteral("tiny-gpt2"), 0);
    std::vector<std::vector<int>> shown;
    connect(&session, &ModelSession::resultChanged, this,
            [&] { shown.push_back(session.result()->tokenIds); });
    QSignalSpy changed(&session, &ModelSession::resultChanged);
    session.setSentence(QStringLiteral("Jane"));
    started.get_future().wait();
    session.setSentence(c["sentence"].toString());
    go.set_value();
    QVERIFY(changed.wait(10000));
    // The held pass saw its flag before its first layer and stopped; its
    // outcome ("cancelled") was queued before the newer one's and dropped.
    QCOMPARE(passes.load(), 2);
    QCOMPARE(session.cancelledPasses(), 1);
    QCOMPARE(int(shown.size()), 1);
    QCOMPARE(shown.front(), ids(c["token_ids"]));
    QVERIFY(session.problem().isEmpty());
    QVERIFY(!session.isComputing());
}

void TestModelSession::badFolderKeepsModel()
{
    ModelSession session;
    QVERIFY(open(session, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(session, QStringLiteral("Jane is going")));
    const auto result = session.result();

    QTemporaryDir bad;
    QFile config(bad.filePath(QStringLiteral("config.json")));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(R"({"model_type": "gemma"})");
    config.close();
    const auto direct = attnlab::readModelFolder(bad.path());
    QVERIFY(!direct.ok());

    QSignalSpy failed(&session, &ModelSession::loadFailed);
    QSignalSpy opened(&session, &ModelSession::modelOpened);
    session.openModel(bad.path());
    QVERIFY(session.isLoading());
    QVERIFY(failed.wait(10000));
    QCOMPARE(failed.first().at(0).toString(), QString::fromStdString(direct.error().message));
    QVERIFY(failed.first().at(0).toString().contains(QStringLiteral("gemma")));
    QCOMPARE(opened.count(), 0);
    QVERIFY(!session.isLoading());
    QCOMPARE(session.modelFolder(), folder(QStringLiteral("tiny-gpt2")));
    QCOMPARE(session.result(), result);

    // The kept model still computes.
    QVERIFY(setSentence(session, QStringLiteral("Jane is going to")));
    QCOMPARE(session.result()->tokens(), 4);

    // A folder with a good checkpoint but no tokenizer files names the file.
    QTemporaryDir noVocab;
    for (const char* name : {"config.json", "model.safetensors"})
        QVERIFY(QFile::copy(folder(QStringLiteral("tiny-gpt2/")) + QLatin1String(name),
                            noVocab.filePath(QLatin1String(name))));
    session.openModel(noVocab.path());
    QVERIFY(failed.wait(10000));
    QVERIFY2(failed.last().at(0).toString().contains(QStringLiteral("vocab.json")),
             qPrintable(failed.last().at(0).toString()));
    QCOMPARE(session.modelFolder(), folder(QStringLiteral("tiny-gpt2")));
}

void TestModelSession::tooManyTokens()
{
    ModelSession session;
    QVERIFY(open(session, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(session, QStringLiteral("Jane")));
    const auto result = session.result();
    QSignalSpy changed(&session, &ModelSession::resultChanged);
    QSignalSpy problem(&session, &ModelSession::problemChanged);
    QStringList words;
    for (int i = 0; i < 65; ++i)
        words << QStringLiteral("cat");
    session.setSentence(words.join(QLatin1Char(' ')));  // 65 tokens, n_positions 64
    QCOMPARE(int(session.tokens().size()), 65);
    QVERIFY(!session.isComputing());
    QCOMPARE(problem.count(), 1);
    QVERIFY2(
        session.problem().contains(QStringLiteral("65")) && session.problem().contains(QStringLiteral("64")),
        qPrintable(session.problem()));
    QCOMPARE(session.result(), result);
    QCOMPARE(changed.count(), 0);

    words.removeLast();
    QVERIFY(setSentence(session, words.join(QLatin1Char(' '))));
    QVERIFY(session.problem().isEmpty());
    QCOMPARE(session.result()->tokens(), 64);
}

void TestModelSession::mapBudget()
{
    ModelSession session;
    QVERIFY(open(session, folder(QStringLiteral("tiny-gpt2"))));
    // 2 layers x 4 heads, head_dim 4: 8 (8 n^2 + 128 n) bytes.
    QCOMPARE(session.mapBytes(10), 8.0 * (800.0 + 1280.0));
    session.setMapBudget(8.0 * (800.0 + 1280.0));
    const QString ten = referenceCase(QStringLiteral("tiny-gpt2"), 0)["sentence"].toString();
    QVERIFY(setSentence(session, ten));  // exactly the budget: runs
    QCOMPARE(session.result()->tokens(), 10);
    QSignalSpy changed(&session, &ModelSession::resultChanged);
    session.setSentence(ten + QStringLiteral(" film"));
    QVERIFY(!session.isComputing());
    QVERIFY2(session.problem().contains(QStringLiteral("11 GPT-2 tokens")), qPrintable(session.problem()));
    QCOMPARE(session.result()->tokens(), 10);
    QCOMPARE(changed.count(), 0);
    // GPT-2 small's shapes at 1024 tokens: 144 heads of (8 n^2 + 32 n 64) bytes, 1.4 GiB.
    QVERIFY(144.0 * (8.0 * 1024 * 1024 + 32.0 * 1024 * 64) > ModelSession::kDefaultMapBudget);
}

void TestModelSession::temperature()
{
    ModelSession session;
    QVERIFY(open(session, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(session, QStringLiteral("Jane is going to the cinema to watch a new")));
    const auto result = session.result();
    QSignalSpy changed(&session, &ModelSession::resultChanged);
    QVERIFY(session.setTemperature(2.0).ok());
    QCOMPARE(changed.count(), 1);  // at once: no new pass
    QCOMPARE(session.result(), result);
    const attn::RowVector& logits = result->lastLogits;
    double sum = 0.0;
    const double top = logits.maxCoeff();
    for (Eigen::Index i = 0; i < logits.size(); ++i)
        sum += std::exp((logits[i] - top) / 2.0);
    for (const attn::TopToken& t : session.nextTokens()) {
        QCOMPARE(t.logit, logits[t.id]);
        QVERIFY(std::abs(t.probability - std::exp((logits[t.id] - top) / 2.0) / sum) <= 1e-12);
    }
    QCOMPARE(session.nextTokens().front().id, result->top.front().id);
    QVERIFY(!session.setTemperature(0.0).ok());
    QCOMPARE(session.temperature(), 2.0);
}

void TestModelSession::keyValueSharingInWords()
{
    // 3 layers, 8 query heads on 2 K/V heads of 16: 2 x 3 x 2 x 16 = 192
    // numbers per token, 768 bytes in F32, 384 in BF16; with one K/V per
    // query head 2 x 3 x 8 x 16 = 768 numbers, 3072 bytes = 3 KiB in F32.
    attn::DecoderConfig c;
    c.layers = 3;
    c.heads = 8;
    c.kvHeads = 2;
    c.headDim = 16;
    QCOMPARE(c.kvCacheNumbersPerToken(), 192LL);
    QCOMPARE(c.kvCacheNumbersPerTokenUnshared(), 768LL);
    QCOMPARE(attnlab::keyValueCacheText(c, "F32"),
             QStringLiteral("K/V cache 768 bytes per token, 3 KiB with one K/V per query head"));
    QCOMPARE(attnlab::keyValueCacheText(c, "BF16"),
             QStringLiteral("K/V cache 384 bytes per token, 1.5 KiB with one K/V per query head"));
    QCOMPARE(attnlab::keyValueCacheText(c, "F16+F32"),
             QStringLiteral("K/V cache 192 numbers per token, 768 numbers with one K/V per query head"));
    // Head 5 (0-based) is H6 on screen: heads 4-7 read K/V head 1, the
    // second.
    QCOMPARE(attnlab::keyValueSharingText(c, 5), QStringLiteral("reads K/V head 2 with heads 5, 7, 8"));
    QCOMPARE(attnlab::keyValueSharingText(c, 0), QStringLiteral("reads K/V head 1 with heads 2, 3, 4"));
    QVERIFY(attnlab::keyValueSharingText(c, 8).isEmpty());
    c.kvHeads = 4;
    QCOMPARE(attnlab::keyValueSharingText(c, 3), QStringLiteral("reads K/V head 2 with head 3"));
    c.kvHeads = 1;
    QCOMPARE(attnlab::keyValueSharingText(c, 3), QStringLiteral("reads K/V head 1 with every head"));
    // GPT-2's one K/V per query head: no sharing to tell.
    c.kvHeads = 8;
    QVERIFY(attnlab::keyValueSharingText(c, 3).isEmpty());
    QCOMPARE(attnlab::keyValueCacheText(c, "F32"), QStringLiteral("K/V cache 3 KiB per token"));
}

void TestModelSession::scoreRangesAndQkNorm()
{
    ModelSession session;
    QVERIFY(open(session, QStringLiteral(ATTNLAB_TEST_DATA_DIR "/llama/tiny-qwen3")));
    QVERIFY(setSentence(session, QStringLiteral("Jane is going to the cinema")));
    QVERIFY(session.config().qkNorm);
    // The readouts are every kept head's computeStatistics.
    const attn::ScoreRangeTable& ranges = session.scoreRanges();
    QCOMPARE(ranges.layers, 2);
    QCOMPARE(ranges.heads, 4);
    const attn::AttentionStats st = attn::computeStatistics(*session.head(1, 2));
    QCOMPARE(ranges.at(1, 2).scoreVariance, st.rawVariance);
    QCOMPARE(ranges.at(1, 2).meanMaxWeight, st.meanMaxWeight);
    QCOMPARE(session.scoreRangeMatrix(attn::ScoreRangeKind::MeanEntropy)(1, 2), st.meanEntropyNats);
    const std::vector<attn::HeadIndex> order = session.rankedHeads(attn::ScoreRangeKind::ScoreVariance);
    QCOMPARE(int(order.size()), 8);
    for (std::size_t k = 1; k < order.size(); ++k)
        QVERIFY(ranges.at(order[k - 1].layer, order[k - 1].head).scoreVariance
                >= ranges.at(order[k].layer, order[k].head).scoreVariance);
    const double normedVariance = ranges.at(0, 0).scoreVariance;

    // Without QK-norm: another pass, other readouts.
    QSignalSpy changed(&session, &ModelSession::resultChanged);
    QVERIFY(session.setQkNormRemoved(true).ok());
    QVERIFY(changed.wait(10000));
    QVERIFY(session.qkNormRemoved());
    QVERIFY(session.result()->qkNormSkipped);
    QVERIFY(session.scoreRanges().at(0, 0).scoreVariance != normedVariance);
    QCOMPARE(session.scoreRanges().at(0, 0).scoreVariance,
             attn::computeStatistics(*session.head(0, 0)).rawVariance);
    QVERIFY(session.setQkNormRemoved(false).ok());
    QVERIFY(changed.wait(10000));
    QCOMPARE(session.scoreRanges().at(0, 0).scoreVariance, normedVariance);

    // GPT-2 has none to remove: refused, nothing runs.
    QVERIFY(open(session, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(!session.qkNormRemoved());
    const attn::Status refused = session.setQkNormRemoved(true);
    QVERIFY(!refused.ok());
    QVERIFY(QString::fromStdString(refused.error().message).contains(QStringLiteral("no QK-norm")));
    QVERIFY(!session.qkNormRemoved());
}

void TestModelSession::rotarySelection()
{
    ModelSession session;
    QVERIFY(open(session, QStringLiteral(ATTNLAB_TEST_DATA_DIR "/llama/tiny-llama")));
    QVERIFY(setSentence(session, QStringLiteral("Jane is going to the cinema")));
    session.selectHead(1, 3);
    const attn::Expected<attn::RotaryHead> rotary = attnlab::selectedRotaryHead(session);
    QVERIFY2(rotary.ok(), rotary.ok() ? "" : rotary.error().message.c_str());
    QCOMPARE(rotary->layer, 1);
    QCOMPARE(rotary->head, 3);
    QCOMPARE(rotary->kvHead, 1);
    QCOMPARE(rotary->scoresAfter, session.head(1, 3)->scores);
    // tiny-llama: rope_theta 10000, head_dim 8: theta_1 = 10000^(-2/8) = 0.1.
    QCOMPARE(int(rotary->frequencies.size()), 4);
    QVERIFY(std::abs(rotary->frequencies[1] - 0.1) <= 1e-15);
    QVERIFY(std::abs(rotary->angles(5, 1) - 0.5) <= 1e-15);
    QVERIFY(attnlab::rotaryFrequencyText(session, *rotary).startsWith(QStringLiteral("θ_i = 10000^(−2i/8)")));

    QVERIFY(open(session, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(session, QStringLiteral("Jane is going")));
    const attn::Expected<attn::RotaryHead> none = attnlab::selectedRotaryHead(session);
    QVERIFY(!none.ok());
    QVERIFY(QString::fromStdString(none.error().message).contains(QStringLiteral("learned positions")));
}

QTEST_GUILESS_MAIN(TestModelSession)
#include "tst_modelsession.moc"
