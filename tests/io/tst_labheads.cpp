// SPDX-License-Identifier: GPL-3.0-or-later
// Multi-head labs (version 2, "heads"): the article's three independent
// heads (with and without W_o) and nn.MultiheadAttention's split layout
// (its own initialisation, biased) save and open bit for bit, with the
// numbers of the references; a version 1 file still opens; every bad
// multi-head field is refused with a message naming it.

#include "labfile.h"
#include "labheads.h"
#include "multihead_init.h"
#include "testdata.h"
#include "tokenizer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <functional>
#include <sstream>

namespace {

using JsonEdit = std::function<void(QJsonObject& root, QJsonObject& heads)>;
using StateEdit = std::function<void(attnlab::LabState&)>;

template <typename A, typename B>
bool sameBits(const A& a, const B& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols()
           && (a.size() == 0 || std::memcmp(a.data(), b.data(), std::size_t(a.size()) * sizeof(double)) == 0);
}

std::string labText(const attnlab::LabState& state)
{
    std::ostringstream out;
    attnlab::writeLabJson(out, state);
    return out.str();
}

attnlab::LabState fromSnapshot(const attn::Expected<attnlab::AttentionSnapshot>& snapshot)
{
    if (!snapshot)
        qFatal("%s", snapshot.error().message.c_str());
    return attnlab::labStateFromSnapshot(snapshot.value(), QJsonObject{{"focus_query", 2}});
}

// The article's example with h heads of its own (d_model 16, d_k 24,
// d_v 28, seed 123), optionally W_o, `selected` the pipeline's head.
attnlab::LabState independentLab(int heads, bool wo, int selected = 0, const attn::ModelConfig& config = {})
{
    attn::Tokenization tokens = attn::tokenizeFor(config).value();
    attn::Matrix X = attn::drawEmbeddings(config, tokens);
    attn::IndependentHeads params;
    params.heads = attn::drawIndependentHeads(config, heads);
    if (wo)
        params.Wo = attn::drawOutputProjection(config, heads);
    attnlab::LabState state = fromSnapshot(attnlab::computeMultiHeadSnapshot(
        config, attn::AttentionOptions(), std::move(tokens), std::move(X), std::move(params), "article"));
    state.selectedHead = selected;
    const attn::HeadWeights w = state.multiHead.head(selected);
    state.Wq = w.Wq;
    state.Wk = w.Wk;
    state.Wv = w.Wv;
    return state;
}

// nn.MultiheadAttention(E, h) after torch.manual_seed(seed), biases drawn.
attnlab::LabState splitLab(const QString& sentence, std::uint64_t seed, int e, int h, bool causal,
                           int selected = 0)
{
    attn::ModelConfig config;
    config.sentence = sentence.toStdString();
    config.seed = seed;
    config.dModel = e;
    attn::AttentionOptions options;
    options.causal = causal;
    attn::Tokenization tokens = attn::tokenizeFor(config).value();
    attn::Matrix X = attn::drawEmbeddings(config, tokens);
    attnlab::LabState state = fromSnapshot(attnlab::computeMultiHeadSnapshot(
        config, options, std::move(tokens), std::move(X), attn::drawTorchMha(seed, e, h, true), "torch-mha"));
    state.selectedHead = selected;
    const attn::HeadWeights w = state.multiHead.head(selected);
    state.Wq = w.Wq;
    state.Wk = w.Wk;
    state.Wv = w.Wv;
    return state;
}

attn::ModelConfig smallConfig()
{
    attn::ModelConfig config;
    config.sentence = "a b";
    config.dModel = 4;
    config.dK = 2;
    config.dV = 3;
    config.init = attn::InitMode::UnitVariance;
    return config;
}

attnlab::LabState smallSplit()
{
    return splitLab("a b", 5, 4, 2, false);
}

QJsonObject toJson(const attnlab::LabState& state)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(labText(state))).object();
}

QJsonObject torchCase(int index)
{
    return testdata::readJson("torch_mha_cases.json")["cases"].toArray()[index].toObject();
}

QJsonArray rows(const attn::Matrix& m)
{
    QJsonArray out;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        QJsonArray row;
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            row.append(m(i, j));
        out.append(row);
    }
    return out;
}

}  // namespace

Q_DECLARE_METATYPE(attnlab::LabState)
Q_DECLARE_METATYPE(JsonEdit)
Q_DECLARE_METATYPE(StateEdit)

class TestLabHeads : public QObject {
    Q_OBJECT
private slots:
    void saveThenOpenIsIdentical_data();
    void saveThenOpenIsIdentical();
    void articleHeadsInTheFile();
    void splitLayoutInTheFile();
    void selectedHeadIsThePipelinesHead();
    void oneHeadSpelledOutIsTheSingleHead();
    void unknownFieldsOfHeadsAreWarned();
    void badHeads_data();
    void badHeads();
    void badStates_data();
    void badStates();
};

void TestLabHeads::saveThenOpenIsIdentical_data()
{
    QTest::addColumn<attnlab::LabState>("state");
    QTest::newRow("article, 3 independent heads") << independentLab(3, false);
    QTest::newRow("article, 3 heads and W_o, head 3 selected") << independentLab(3, true, 2);
    QTest::newRow("one head and W_o") << independentLab(1, true);
    QTest::newRow("torch-mha, biased, E 32, h 8, head 6 selected")
        << splitLab("Jane is going to the cinema to watch a new film", 7, 32, 8, false, 5);
    QTest::newRow("torch-mha, biased, causal, E 12, h 1")
        << splitLab("the cat sat on the mat", 0, 12, 1, true);
}

void TestLabHeads::saveThenOpenIsIdentical()
{
    QFETCH(attnlab::LabState, state);
    QVERIFY(state.heads.multiHead());
    QTemporaryDir dir;
    const QString path = dir.filePath("heads.attnlab");
    const attn::Status saved = attnlab::saveLabFile(path, state);
    QVERIFY2(saved.ok(), saved.ok() ? "" : saved.error().message.c_str());
    const auto opened = attnlab::readLabFile(path);
    QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().message.c_str());
    const attnlab::LabState& back = opened.value();
    QVERIFY(back.warnings.empty());
    QVERIFY(back.heads == state.heads);
    QCOMPARE(back.selectedHead, state.selectedHead);
    QVERIFY(back.multiHead.layout == state.multiHead.layout);
    QCOMPARE(back.multiHead.headCount(), state.multiHead.headCount());
    for (int i = 0; i < state.multiHead.headCount(); ++i) {
        const attn::HeadWeights a = back.multiHead.head(i), b = state.multiHead.head(i);
        QVERIFY(sameBits(a.Wq, b.Wq) && sameBits(a.Wk, b.Wk) && sameBits(a.Wv, b.Wv));
    }
    QVERIFY(sameBits(back.multiHead.independent.Wo, state.multiHead.independent.Wo));
    const attn::SplitHeads &s = back.multiHead.split, &t = state.multiHead.split;
    QCOMPARE(s.heads, t.heads);
    QVERIFY(sameBits(s.inProjWeight, t.inProjWeight) && sameBits(s.inProjBias, t.inProjBias));
    QVERIFY(sameBits(s.outProjWeight, t.outProjWeight) && sameBits(s.outProjBias, t.outProjBias));
    QVERIFY(sameBits(back.X, state.X) && sameBits(back.Wq, state.Wq) && sameBits(back.Wv, state.Wv));
    QCOMPARE(back.view, state.view);

    // The same multi-head pass, bit for bit.
    const auto before = attnlab::computeLabSnapshot(state);
    const auto after = attnlab::computeLabSnapshot(back);
    QVERIFY(before.ok() && after.ok());
    QCOMPARE(after->result.headCount(), state.heads.heads);
    for (int i = 0; i < state.heads.heads; ++i)
        QVERIFY(sameBits(after->result.heads[std::size_t(i)].weightsMatrix(),
                         before->result.heads[std::size_t(i)].weightsMatrix()));
    QVERIFY(sameBits(after->result.weightsAverage, before->result.weightsAverage));
    QVERIFY(sameBits(after->result.concat, before->result.concat));
    QVERIFY(sameBits(after->result.output, before->result.output));
    QCOMPARE(after->result.hasOutput(),
             state.heads.layout == attn::HeadLayout::Split || state.heads.outputProjection);
    QCOMPARE(labText(back), labText(state));
}

// The file holds the article's own heads (multi_head_derived: head i's W_q
// the transpose of torch.rand(3, 24, 16)[i]) and its numbers.
void TestLabHeads::articleHeadsInTheFile()
{
    const QJsonObject ref =
        testdata::readJson("raschka_self_attention.json")["multi_head_derived"].toObject();
    const attnlab::LabState state = independentLab(3, true);
    const QJsonObject json = toJson(state);
    QCOMPARE(json["version"].toInt(), 2);
    const QJsonObject heads = json["heads"].toObject();
    QCOMPARE(heads["count"].toInt(), 3);
    QCOMPARE(heads["layout"].toString(), QStringLiteral("independent"));
    QCOMPARE(heads["output_projection"].toBool(), true);
    QCOMPARE(heads["torch_init"].toBool(true), false);
    QCOMPARE(heads["selected"].toInt(), 1);
    QCOMPARE(heads["head_weights"].toArray().size(), 3);
    for (int i = 0; i < 3; ++i) {
        const QJsonObject head = heads["head_weights"].toArray()[i].toObject();
        QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(head["W_q"]),
                                      testdata::toMatrix(ref["multihead_W_query"].toArray()[i]).transpose()),
                 0.0);
        QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(head["W_k"]),
                                      testdata::toMatrix(ref["multihead_W_key"].toArray()[i]).transpose()),
                 0.0);
        QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(head["W_v"]),
                                      testdata::toMatrix(ref["multihead_W_value"].toArray()[i]).transpose()),
                 0.0);
    }
    const attn::Matrix wo = testdata::toMatrix(heads["W_o"]);
    QCOMPARE(int(wo.rows()), 84);  // h d_v
    QCOMPARE(int(wo.cols()), 16);  // d_model
    // The top-level W_q is head 1's: what a version 1 reader opens.
    QCOMPARE(json["W_q"], heads["head_weights"].toArray()[0].toObject()["W_q"]);

    const auto opened = attnlab::parseLab(labText(state));
    QVERIFY(opened.ok());
    const auto snapshot = attnlab::computeLabSnapshot(opened.value());
    QVERIFY(snapshot.ok());
    for (int i = 0; i < 3; ++i) {
        const double weights = testdata::maxAbsDiff(snapshot->result.heads[std::size_t(i)].weightsMatrix(),
                                                    testdata::toMatrix(ref["weights"].toArray()[i]));
        QVERIFY2(weights < 1e-6, qPrintable(QString::number(weights)));
    }
    // output = concat W_o by a plain loop.
    const attn::Matrix& concat = snapshot->result.concat;
    for (int r = 0; r < concat.rows(); ++r)
        for (int c = 0; c < wo.cols(); ++c) {
            double sum = 0;
            for (int p = 0; p < concat.cols(); ++p)
                sum += concat(r, p) * wo(p, c);
            QVERIFY(std::abs(snapshot->result.output(r, c) - sum) <= 1e-12 * std::max(1.0, std::abs(sum)));
        }
}

// PyTorch's layout, exactly the module's parameters (torch_mha_cases.json
// case 2: E 32, h 8, seed 7, biased), and its output within 1e-5.
void TestLabHeads::splitLayoutInTheFile()
{
    const QJsonObject c = torchCase(2);
    const attnlab::LabState state =
        splitLab(c["sentence"].toString(), std::uint64_t(c["seed"].toInteger()), 32, 8, false);
    const QJsonObject json = toJson(state);
    QCOMPARE(json["d_k"].toInt(), 4);
    QCOMPARE(json["d_v"].toInt(), 4);
    const QJsonObject heads = json["heads"].toObject();
    QCOMPARE(heads["count"].toInt(), 8);
    QCOMPARE(heads["layout"].toString(), QStringLiteral("split"));
    QCOMPARE(heads["torch_init"].toBool(), true);
    QVERIFY(!heads.contains("head_weights") && !heads.contains("W_o"));
    QCOMPARE(heads["in_proj_bias"].toArray().size(), 96);
    QVERIFY(heads["in_proj_bias"].toArray()[0].isDouble());  // flat, as PyTorch's (3E)
    for (const char* key : {"in_proj_weight", "in_proj_bias", "out_proj_weight", "out_proj_bias"})
        QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(heads[key]), testdata::toMatrix(c[key])), 0.0);
    // Head 1's W_q: rows 0..3 of in_proj_weight, transposed.
    QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(json["W_q"]),
                                  testdata::toMatrix(c["in_proj_weight"]).topRows(4).transpose()),
             0.0);

    const auto opened = attnlab::parseLab(labText(state));
    QVERIFY(opened.ok());
    const auto snapshot = attnlab::computeLabSnapshot(opened.value());
    QVERIFY(snapshot.ok());
    QCOMPARE(snapshot->headInit, std::string("torch-mha"));
    const double output = testdata::maxAbsDiff(snapshot->result.output, testdata::toMatrix(c["attn_output"]));
    QVERIFY2(output < 1e-5, qPrintable(QString::number(output)));
    const double average =
        testdata::maxAbsDiff(snapshot->result.weightsAverage, testdata::toMatrix(c["attn_weights_average"]));
    QVERIFY2(average < 1e-5, qPrintable(QString::number(average)));
}

// computeLabSnapshot gives every head from the multi-head pass, the
// selected one the pipeline's: in the split layout its Q carries the bias.
void TestLabHeads::selectedHeadIsThePipelinesHead()
{
    const attnlab::LabState state = splitLab("a b c", 9, 6, 3, false, 2);
    const auto all = attnlab::computeLabSnapshot(state);
    QVERIFY(all.ok());
    const attn::AttentionResult& single = all->head(state.selectedHead);
    QVERIFY(sameBits(single.weightsMatrix(), all->result.heads[2].weightsMatrix()));
    QVERIFY(sameBits(all->headWeights(state.selectedHead).Wq, state.Wq));
    // Q = X W_q + b_q: the bias of head 3's query features 4 and 5.
    const attn::RowVector bias = state.multiHead.split.inProjBias.segment(4, 2);
    QVERIFY(bias.cwiseAbs().maxCoeff() > 0);
    const attn::Matrix expected = (state.X * state.Wq).rowwise() + bias;
    QVERIFY(testdata::maxAbsDiff(single.Q, expected) < 1e-15);
    QVERIFY(!sameBits(single.weightsMatrix(), all->result.heads[0].weightsMatrix()));
}

// "heads" with one head and no projection is checked, then read as the
// single-head lab it is.
void TestLabHeads::oneHeadSpelledOutIsTheSingleHead()
{
    attnlab::LabState state = independentLab(1, true);
    QJsonObject json = toJson(state);
    QJsonObject heads = json["heads"].toObject();
    heads["output_projection"] = false;
    heads.remove("W_o");
    json["heads"] = heads;
    const auto read = attnlab::parseLab(QJsonDocument(json).toJson().toStdString());
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QVERIFY(!read->heads.multiHead());
    QCOMPARE(read->multiHead.headCount(), 0);
    QVERIFY(sameBits(read->Wq, state.Wq));
    QVERIFY(!toJson(read.value()).contains("heads"));

    heads["head_weights"] = QJsonArray{
        QJsonObject{{"W_q", rows(state.Wq * 2)}, {"W_k", rows(state.Wk)}, {"W_v", rows(state.Wv)}}};
    json["heads"] = heads;
    const auto differs = attnlab::parseLab(QJsonDocument(json).toJson().toStdString());
    QVERIFY(!differs.ok());
    QVERIFY2(
        QString::fromStdString(differs.error().message)
            .startsWith("\"W_q\" must be a copy of the selected head's W_q (\"heads\".\"selected\" is 1)"),
        differs.error().message.c_str());
}

void TestLabHeads::unknownFieldsOfHeadsAreWarned()
{
    QJsonObject json = toJson(independentLab(2, false, 0, smallConfig()));
    QJsonObject heads = json["heads"].toObject();
    heads["layer_norm"] = true;
    QJsonArray list = heads["head_weights"].toArray();
    QJsonObject second = list[1].toObject();
    second["b_q"] = QJsonArray{1, 2};
    list[1] = second;
    heads["head_weights"] = list;
    json["heads"] = heads;
    const auto read = attnlab::parseLab(QJsonDocument(json).toJson().toStdString());
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QCOMPARE(read->warnings.size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(read->warnings[0]),
             QStringLiteral("unknown fields of \"heads\" head 2 were left out: \"b_q\""));
    QCOMPARE(QString::fromStdString(read->warnings[1]),
             QStringLiteral("unknown fields of \"heads\" were left out: \"layer_norm\""));
}

// A valid small lab (independent: "a b", d_model 4, d_k 2, d_v 3, h 2,
// W_o; split: E 4, h 2, biased) with its JSON edited as a person would.
void TestLabHeads::badHeads_data()
{
    QTest::addColumn<attnlab::LabState>("state");
    QTest::addColumn<JsonEdit>("edit");
    QTest::addColumn<QString>("message");
    const attnlab::LabState ind = independentLab(2, true, 0, smallConfig());
    const attnlab::LabState split = smallSplit();
    const auto headField = [](int i, const char* key, QJsonValue value) {
        return JsonEdit([=](QJsonObject&, QJsonObject& heads) {
            QJsonArray list = heads["head_weights"].toArray();
            QJsonObject head = list[i].toObject();
            if (value.isUndefined())
                head.remove(key);
            else
                head[key] = value;
            list[i] = head;
            heads["head_weights"] = list;
        });
    };
    const auto field = [](const char* key, QJsonValue value) {
        return JsonEdit([=](QJsonObject&, QJsonObject& heads) {
            if (value.isUndefined())
                heads.remove(key);
            else
                heads[key] = value;
        });
    };
    const QJsonValue removed(QJsonValue::Undefined);
    QTest::newRow("heads an array") << ind << JsonEdit([](QJsonObject& root, QJsonObject&) {
        root["heads"] = QJsonArray{2};
    }) << "\"heads\" (line";
    QTest::newRow("count missing") << ind << field("count", removed)
                                   << "the field \"heads\".\"count\" is missing";
    QTest::newRow("count 0") << ind << field("count", 0) << "must be a whole number from 1 to 64, not 0";
    QTest::newRow("count 65") << ind << field("count", 65) << "must be a whole number from 1 to 64, not 65";
    QTest::newRow("count 3, two heads given")
        << ind << field("count", 3) << "holds 2 heads but \"heads\".\"count\" is 3";
    QTest::newRow("layout unknown")
        << ind << field("layout", "mixed")
        << "\"heads\".\"layout\" must be \"independent\" or \"split\", not \"mixed\"";
    QTest::newRow("torch_init a string")
        << ind << field("torch_init", "no") << "must be true or false, not a string";
    QTest::newRow("selected 0") << ind << field("selected", 0) << "\"heads\".\"selected\" (line";
    QTest::newRow("selected 3 of 2") << ind << field("selected", 3)
                                     << "\"heads\".\"selected\" is 3 but the heads are numbered 1 to 2";
    QTest::newRow("selected 2, W_q still head 1's") << ind << field("selected", 2)
                                                    << "\"W_q\" must be a copy of the selected head's W_q "
                                                       "(\"heads\".\"selected\" is 2); row 1, column 1 is";
    QTest::newRow("head_weights missing")
        << ind << field("head_weights", removed) << "the field \"heads\".\"head_weights\" is missing";
    QTest::newRow("head_weights of numbers")
        << ind << field("head_weights", QJsonArray{1, 2}) << "must be an array of objects, one per head";
    QTest::newRow("a head a number") << ind << JsonEdit([](QJsonObject&, QJsonObject& heads) {
        QJsonArray list = heads["head_weights"].toArray();
        list[1] = 7;
        heads["head_weights"] = list;
    }) << "must be an object with \"W_q\", \"W_k\" and \"W_v\", not a number";
    QTest::newRow("head W_k missing")
        << ind << headField(0, "W_k", removed) << "the field \"heads\" head 1 \"W_k\" is missing";
    QTest::newRow("head W_q too wide")
        << ind << headField(1, "W_q", rows(attn::Matrix::Ones(4, 3)))
        << "\"heads\" head 2 \"W_q\" is (4, 3) but must be (4, 2): d_model x d_k";
    QTest::newRow("head W_v flat") << ind << headField(1, "W_v", QJsonArray{1, 2, 3})
                                   << "\"heads\" head 2 \"W_v\" (line";
    QTest::newRow("head W_v entry too large")
        << ind << headField(1, "W_v", rows(attn::Matrix::Constant(4, 3, 2e30)))
        << "\"heads\" head 2 \"W_v\", row 1, column 1: 2e+30 is too large";
    QTest::newRow("W_o missing") << ind << field("W_o", removed)
                                 << "the field \"heads\".\"W_o\" is missing: \"output_projection\" is true";
    QTest::newRow("W_o without output_projection")
        << ind << field("output_projection", false)
        << "\"heads\".\"W_o\" is given but \"output_projection\" is false";
    QTest::newRow("W_o too short")
        << ind << field("W_o", rows(attn::Matrix::Ones(5, 4)))
        << "\"heads\".\"W_o\" is (5, 4) but must be (6, d_out): h d_v = 2 x 3 rows";
    QTest::newRow("top-level W_k edited")
        << ind
        << JsonEdit([](QJsonObject& root, QJsonObject&) { root["W_k"] = rows(attn::Matrix::Zero(4, 2)); })
        << "\"W_k\" must be a copy of the selected head's W_k (\"heads\".\"selected\" is 1); row 1, column 1 "
           "is 0";

    QTest::newRow("split: 3 heads do not divide E = 4")
        << split << field("count", 3)
        << "\"heads\".\"count\": In the split layout h must divide d_model (embed_dim E); 3 heads do not "
           "divide E = 4.";
    QTest::newRow("split: in_proj_weight transposed")
        << split << JsonEdit([](QJsonObject&, QJsonObject& heads) {
               heads["in_proj_weight"] = rows(testdata::toMatrix(heads["in_proj_weight"]).transpose());
           })
        << "\"heads\".\"in_proj_weight\" is (4, 12) but must be (12, 4): 3E x E for E = d_model = 4";
    QTest::newRow("split: in_proj_bias short")
        << split << field("in_proj_bias", QJsonArray{1, 2, 3})
        << "\"heads\".\"in_proj_bias\" has 3 numbers but must have 12: 3E for E = d_model = 4";
    QTest::newRow("split: in_proj_bias of rows")
        << split << field("in_proj_bias", QJsonArray{QJsonArray{1}}) << "\"heads\".\"in_proj_bias\" (line";
    QTest::newRow("split: out_proj_bias missing")
        << split << field("out_proj_bias", removed) << "the field \"heads\".\"out_proj_bias\" is missing";
    QTest::newRow("split: out_proj_bias too large")
        << split << field("out_proj_bias", QJsonArray{0, 5e30, 0, 0})
        << "\"heads\".\"out_proj_bias\", entry 2: 5e+30 is too large";
    QTest::newRow("split: out_proj_weight short")
        << split << field("out_proj_weight", rows(attn::Matrix::Ones(3, 4)))
        << "\"heads\".\"out_proj_weight\" is (3, 4) but must be (4, 4): E x E";
    QTest::newRow("split: the top-level W_v edited")
        << split
        << JsonEdit([](QJsonObject& root, QJsonObject&) { root["W_v"] = rows(attn::Matrix::Ones(4, 2)); })
        << "\"W_v\" must be a copy of the selected head's W_v";
}

void TestLabHeads::badHeads()
{
    QFETCH(attnlab::LabState, state);
    QFETCH(JsonEdit, edit);
    QFETCH(QString, message);
    QJsonObject json = toJson(state);
    QVERIFY(json["heads"].isObject());
    QJsonObject heads = json["heads"].toObject();
    edit(json, heads);
    if (json["heads"].isObject())
        json["heads"] = heads;
    const std::string text = QJsonDocument(json).toJson().toStdString();
    const auto read = attnlab::parseLab(text);
    QVERIFY2(!read.ok(), text.c_str());
    QVERIFY2(QString::fromStdString(read.error().message).contains(message), read.error().message.c_str());
}

// States the window could hand over, refused before anything is written.
void TestLabHeads::badStates_data()
{
    QTest::addColumn<attnlab::LabState>("state");
    QTest::addColumn<StateEdit>("edit");
    QTest::addColumn<QString>("message");
    const attnlab::LabState ind = independentLab(2, true, 0, smallConfig());
    QTest::newRow("count against the parameters")
        << ind << StateEdit([](attnlab::LabState& s) { s.heads.heads = 3; })
        << "\"heads\".\"count\" is 3 but the parameters hold 2 heads";
    QTest::newRow("layout against the parameters")
        << ind << StateEdit([](attnlab::LabState& s) { s.heads.layout = attn::HeadLayout::Split; })
        << "\"heads\".\"layout\" is \"split\" but the parameters are in the independent layout";
    QTest::newRow("selected -1") << ind << StateEdit([](attnlab::LabState& s) { s.selectedHead = -1; })
                                 << "\"heads\".\"selected\" is 0 but the heads are numbered 1 to 2";
    QTest::newRow("too many weight entries")
        << ind << StateEdit([](attnlab::LabState& s) {
               // 64 heads of d_model 1024, d_k 24, d_v 24: 4,718,592 entries.
               s.config.dModel = 1024;
               s.config.dK = s.config.dV = 24;
               s.X = attn::Matrix::Zero(2, 1024);
               s.Wq = s.Wk = s.Wv = attn::Matrix::Zero(1024, 24);
               s.heads.heads = 64;
               s.multiHead.independent.heads.resize(64);
           })
        << "\"heads\".\"count\": 64 heads of d_model 1024, d_k 24 and d_v 24 need 4718592 weight entries; at "
           "most 3145728 are allowed";
    QTest::newRow("score maps over 2^27 entries") << ind << StateEdit([](attnlab::LabState& s) {
        std::string sentence = "w";
        for (int i = 1; i < 1500; ++i)
            sentence += " w";
        s.config.sentence = sentence;
        s.X = attn::Matrix::Zero(1500, 4);
        s.heads.heads = 64;
        s.multiHead.independent.heads.resize(64);
    }) << "\"heads\".\"count\": 64 heads of 1500 x 1500 score maps exceed the 134217728 entries";
    const attnlab::LabState split = smallSplit();
    QTest::newRow("split: d_k against E / h") << split << StateEdit([](attnlab::LabState& s) {
        s.config.dK = s.config.dV = 1;
        s.Wq = s.Wq.leftCols(1).eval();
        s.Wk = s.Wk.leftCols(1).eval();
        s.Wv = s.Wv.leftCols(1).eval();
    }) << "\"d_k\" and \"d_v\" must be d_model / h = 4 / 2 = 2 in the split layout; they are 1 and 1";
}

void TestLabHeads::badStates()
{
    QFETCH(attnlab::LabState, state);
    QFETCH(StateEdit, edit);
    QFETCH(QString, message);
    edit(state);
    const attn::Status valid = attnlab::validateLabState(state);
    QVERIFY(!valid.ok());
    QVERIFY2(QString::fromStdString(valid.error().message).contains(message), valid.error().message.c_str());
    QTemporaryDir dir;
    QVERIFY(!attnlab::saveLabFile(dir.filePath("lab.attnlab"), state).ok());
    QVERIFY(!QFile::exists(dir.filePath("lab.attnlab")));
}

QTEST_APPLESS_MAIN(TestLabHeads)
#include "tst_labheads.moc"
