// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelfamilies.h"

#include "gpt2folder.h"
#include "inputfile.h"
#include "llamafolder.h"
#include "safetensors.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QStringList>

#include <string>
#include <utility>

namespace attnlab {

namespace {

// config.json is a few hundred bytes; a megabyte is no model's.
constexpr long long kMaxConfigBytes = 1 << 20;
// The label is one line under a picture's title.
constexpr int kMaxLabelCharacters = 200;

attn::Error fail(const std::string& what)
{
    return attn::Error{"config.json: " + what};
}

}  // namespace

const std::vector<ModelFamily>& modelFamilies()
{
    // One line a family (the Llama family's reader takes four model_types).
    static const std::vector<ModelFamily> families = [] {
        std::vector<ModelFamily> all{gpt2Family()};
        for (const ModelFamily& f : llamaFamilies())
            all.push_back(f);
        return all;
    }();
    return families;
}

const ModelFamily* findModelFamily(std::string_view modelType)
{
    for (const ModelFamily& family : modelFamilies())
        if (modelType == family.modelType)
            return &family;
    return nullptr;
}

std::string supportedModelTypes()
{
    std::string list;
    for (const ModelFamily& family : modelFamilies())
        list += (list.empty() ? "" : ", ") + std::string(family.modelType);
    return list;
}

QString supportedFamilyNames()
{
    QStringList names;
    for (const ModelFamily& family : modelFamilies())
        names << QString::fromUtf8(family.name);
    return names.join(QStringLiteral(", "));
}

attn::Expected<ModelFolder> readModelFolder(const QString& folder)
{
    const QDir dir(folder);
    const attn::Expected<QByteArray> json =
        readInputFile(dir.filePath(QStringLiteral("config.json")), kMaxConfigBytes, "config.json");
    if (!json.ok())
        return json.error();
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json.value(), &error);
    if (error.error != QJsonParseError::NoError)
        return fail("not valid JSON: " + error.errorString().toStdString() + " at byte "
                    + std::to_string(error.offset));
    if (!doc.isObject())
        return fail("not a JSON object");
    const QJsonValue type = doc.object().value(QLatin1String("model_type"));
    if (!type.isString())
        return fail("no model_type (supported: " + supportedModelTypes() + ")");
    const std::string name = type.toString().toStdString();
    const ModelFamily* family = findModelFamily(name);
    if (!family)
        return fail("model_type \"" + shownText(name)
                    + "\" is not supported (supported: " + supportedModelTypes() + ")");
    QString label;
    if (const QJsonValue given = doc.object().value(QLatin1String("attention_lab_label"));
        !given.isUndefined()) {
        label = given.isString() ? given.toString().simplified() : QString();
        if (label.isEmpty() || label.size() > kMaxLabelCharacters)
            return fail("attention_lab_label must be a line of text of 1 to "
                        + std::to_string(kMaxLabelCharacters) + " characters");
    }
    attn::Expected<ModelFolder> model = family->read(folder, json.value());
    if (!model)
        return model.error();
    model->label = label;
    model->family = QString::fromLatin1(family->modelType);
    model->familyName = QString::fromUtf8(family->name);
    model->folder = folder;
    model->identity = folderIdentity(folder, family->files);
    return model;
}

}  // namespace attnlab
