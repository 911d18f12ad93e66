// SPDX-License-Identifier: GPL-3.0-or-later
#include "trainingexport.h"

#include "csv.h"
#include "jsonwriter.h"
#include "numberformat.h"

#include <algorithm>
#include <sstream>

namespace attnlab {

namespace {

struct Measure {
    const char* name;
    std::vector<double> attn::TrainingRunCurves::*values;
};

const Measure kMeasures[] = {
    {"loss", &attn::TrainingRunCurves::loss},
    {"accuracy", &attn::TrainingRunCurves::accuracy},
    {"grad_norm_q", &attn::TrainingRunCurves::gradNormQ},
    {"grad_norm_k", &attn::TrainingRunCurves::gradNormK},
    {"max_weight", &attn::TrainingRunCurves::maxWeight},
    {"entropy", &attn::TrainingRunCurves::entropy},
    {"saturated_wrong", &attn::TrainingRunCurves::saturatedWrong},
};

}  // namespace

std::string trainingLabJson(const attn::TrainingSettings& s, const std::vector<attn::TrainingRunCurves>& runs)
{
    std::ostringstream out;
    JsonWriter json(out);
    json.beginObject();
    json.key("task");
    json.beginObject();
    json.key("n_keys");
    json.value(s.task.nKeys);
    json.key("d_model");
    json.value(s.task.dModel);
    json.key("classes");
    json.value(s.task.classes);
    json.key("beta");
    json.value(s.task.beta);
    json.key("batch");
    json.value(s.task.batch);
    json.key("query_noise");
    json.value(s.task.queryNoise);
    json.key("steps");
    json.value(s.steps);
    json.key("seed");
    json.value(s.seed);
    json.key("optimizer");
    json.value(s.optimizer == attn::TrainingOptimizer::Adam ? "adam" : "sgd");
    json.key("lr");
    json.value(s.learningRate);
    json.key("adam_beta1");
    json.value(s.adamBeta1);
    json.key("adam_beta2");
    json.value(s.adamBeta2);
    json.key("adam_eps");
    json.value(s.adamEps);
    json.key("divisor");
    if (s.customDivisor > 0)
        json.value(s.customDivisor);
    else
        json.null();
    json.endObject();
    json.key("d_k");
    json.value(s.dK);
    json.key("runs");
    json.beginArray();
    for (const attn::TrainingRunCurves& run : runs) {
        json.beginObject();
        json.key("scale");
        json.value(attn::trainingScaleName(run.scale));
        json.key("divisor");
        json.value(run.divisor);
        for (const Measure& m : kMeasures) {
            json.key(m.name);
            json.beginArray(JsonWriter::Layout::Inline);
            for (double v : run.*m.values)
                json.value(v);
            json.endArray();
        }
        json.endObject();
    }
    json.endArray();
    json.endObject();
    json.finish();
    return out.str();
}

std::string trainingLabCsv(const std::vector<attn::TrainingRunCurves>& runs)
{
    std::string text;
    CsvRow header = {"scale", "divisor", "step"};
    for (const Measure& m : kMeasures)
        header.push_back(m.name);
    appendCsvRow(text, header);
    for (const attn::TrainingRunCurves& run : runs)
        for (std::size_t i = 0; i < run.size(); ++i) {
            CsvRow row = {attn::trainingScaleName(run.scale), formatRoundTrip(run.divisor),
                          std::to_string(i + 1)};
            for (const Measure& m : kMeasures) {
                const std::vector<double>& v = run.*m.values;
                row.push_back(i < v.size() ? formatRoundTrip(v[i]) : std::string());
            }
            appendCsvRow(text, row);
        }
    return text;
}

std::string trainingMeasureCsv(const std::vector<attn::TrainingRunCurves>& runs, const std::string& measure)
{
    std::vector<const Measure*> chosen;
    for (const Measure& m : kMeasures)
        if (measure == m.name || (measure == "grad_norm" && std::string(m.name).rfind("grad_norm_", 0) == 0))
            chosen.push_back(&m);
    if (chosen.empty())
        return {};
    std::string text;
    CsvRow header = {"step"};
    std::size_t steps = 0;
    for (const Measure* m : chosen)
        for (const attn::TrainingRunCurves& run : runs) {
            header.push_back(std::string(m->name) + '_' + attn::trainingScaleName(run.scale));
            steps = std::max(steps, run.size());
        }
    appendCsvRow(text, header);
    for (std::size_t i = 0; i < steps; ++i) {
        CsvRow row = {std::to_string(i + 1)};
        for (const Measure* m : chosen)
            for (const attn::TrainingRunCurves& run : runs) {
                const std::vector<double>& v = run.*m->values;
                row.push_back(i < v.size() ? formatRoundTrip(v[i]) : std::string());
            }
        appendCsvRow(text, row);
    }
    return text;
}

}  // namespace attnlab
