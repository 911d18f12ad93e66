// SPDX-License-Identifier: GPL-3.0-or-later
#include "safetensorsshards.h"

#include "echoedvalue.h"
#include "inputfile.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QSysInfo>

#include <cstdint>
#include <utility>

namespace attnlab {

namespace {

constexpr char kSingle[] = "model.safetensors";
constexpr char kIndex[] = "model.safetensors.index.json";

attn::Error fail(const std::string& file, const std::string& what)
{
    return attn::Error{file + ": " + what};
}

std::string shapeText(const std::vector<std::int64_t>& shape)
{
    return echoedList(shape.size(), [&shape](std::size_t i) { return std::to_string(shape[i]); });
}

bool exists(const QString& path)
{
    return QFileInfo::exists(path) || QFileInfo(path).isSymLink();
}

}  // namespace

attn::Expected<SafetensorsShards> SafetensorsShards::open(const QString& folder)
{
    const QDir dir(folder);
    SafetensorsShards out;
    if (exists(dir.filePath(QLatin1String(kSingle))) || !exists(dir.filePath(QLatin1String(kIndex)))) {
        if (!exists(dir.filePath(QLatin1String(kSingle))))
            return attn::Error{dir.dirName().toStdString() + ": neither " + kSingle + " nor " + kIndex
                               + " is there (only safetensors checkpoints are read)"};
        attn::Expected<SafetensorsFile> file = SafetensorsFile::open(dir.filePath(QLatin1String(kSingle)));
        if (!file)
            return file.error();
        return fromFile(std::move(file).value());
    }

    out.source_ = kIndex;
    const attn::Expected<QByteArray> json =
        readInputFile(dir.filePath(QLatin1String(kIndex)), kMaxSafetensorsIndexBytes, kIndex);
    if (!json)
        return json.error();
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json.value(), &error);
    if (error.error != QJsonParseError::NoError)
        return fail(kIndex, "not valid JSON: " + error.errorString().toStdString() + " at byte "
                                + std::to_string(error.offset));
    const QJsonValue map = doc.object().value(QLatin1String("weight_map"));
    if (!doc.isObject() || !map.isObject())
        return fail(kIndex, "no weight_map object");
    // Shard names in order of first mention, each opened once.
    std::map<QString, std::size_t> shardOf;
    std::vector<std::pair<std::string, QString>> wanted;  // tensor, shard
    const QJsonObject weights = map.toObject();
    for (auto it = weights.begin(); it != weights.end(); ++it) {
        if (!it.value().isString())
            return fail(kIndex,
                        "weight_map entry " + shownText(it.key().toStdString()) + " is not a file name");
        const QString shard = it.value().toString();
        if (shard.isEmpty() || shard.contains(QLatin1Char('/')) || shard.contains(QLatin1Char('\\'))
            || shard == QLatin1String(".") || shard == QLatin1String(".."))
            return fail(kIndex, "weight_map names \"" + shownText(shard.toStdString())
                                    + "\", which is not a file name in the folder");
        wanted.emplace_back(it.key().toStdString(), shard);
        if (shardOf.count(shard))
            continue;
        const QString path = dir.filePath(shard);
        if (!exists(path))
            return fail(kIndex, "the shard " + shownText(shard.toStdString()) + " it names (for tensor "
                                    + shownText(it.key().toStdString()) + ") is missing");
        attn::Expected<SafetensorsFile> file = SafetensorsFile::open(path);
        if (!file)
            return file.error();
        shardOf.emplace(shard, out.files_.size());
        out.files_.push_back(std::make_shared<SafetensorsFile>(std::move(file).value()));
        if (attn::Status s = out.index(out.files_.size() - 1); !s)
            return s.error();
    }
    if (wanted.empty())
        return fail(kIndex, "weight_map names no tensor");
    for (const auto& [tensor, shard] : wanted) {
        const auto it = out.byName_.find(tensor);
        if (it == out.byName_.end() || it->second.second != shardOf[shard])
            return fail(kIndex, "tensor " + shownText(tensor) + " is not in " + shownText(shard.toStdString())
                                    + " as weight_map says");
    }
    if (out.byName_.size() != wanted.size())
        for (const auto& [name, where] : out.byName_)
            if (!weights.contains(QString::fromStdString(name)))
                return fail(out.files_[where.second]->name(),
                            "tensor " + shownText(name) + " is not in " + kIndex + "'s weight_map");
    return out;
}

SafetensorsShards SafetensorsShards::fromFile(SafetensorsFile file)
{
    SafetensorsShards out;
    out.files_.push_back(std::make_shared<SafetensorsFile>(std::move(file)));
    out.source_ = out.files_.front()->name();
    (void)out.index(0);  // one file's names are distinct (the keys of one JSON object)
    return out;
}

attn::Status SafetensorsShards::index(std::size_t file)
{
    for (const SafetensorsTensor& t : files_[file]->tensors()) {
        const auto [it, fresh] = byName_.emplace(t.name, std::make_pair(&t, file));
        if (!fresh)
            return fail(files_[file]->name(),
                        "tensor " + shownText(t.name) + " is also in " + files_[it->second.second]->name());
    }
    return attn::okStatus();
}

std::string SafetensorsShards::fileOf(const std::string& name) const
{
    const auto it = byName_.find(name);
    return it == byName_.end() ? source_ : files_[it->second.second]->name();
}

attn::Status SafetensorsShards::take(const std::string& name, int rows, int cols, const char* meaning,
                                     attn::FloatTensor& out)
{
    const auto it = byName_.find(name);
    if (it == byName_.end())
        return fail(source_, "tensor " + name + " is missing");
    const SafetensorsTensor& t = *it->second.first;
    const SafetensorsFile& file = *files_[it->second.second];
    const std::vector<std::int64_t> expected =
        rows == 0 ? std::vector<std::int64_t>{cols} : std::vector<std::int64_t>{rows, cols};
    if (t.shape != expected)
        return fail(file.name(), "tensor " + shownText(t.name) + " has shape " + t.shapeText() + " but "
                                     + shapeText(expected) + " was expected (" + meaning + ")");
    out = attn::FloatTensor();
    out.rows = rows == 0 ? 1 : rows;
    out.cols = cols;
    const bool inPlaceBf16 = bf16InPlace_ && rows > 0 && t.dtype == "BF16"
                             && QSysInfo::ByteOrder == QSysInfo::LittleEndian
                             && reinterpret_cast<std::uintptr_t>(t.bytes) % alignof(std::uint16_t) == 0;
    if (inPlaceBf16) {
        out.bf16 = reinterpret_cast<const std::uint16_t*>(t.bytes);
        if (inPlaceFiles_.insert(it->second.second).second)
            storage_->files.push_back(file.storage());
        taken_.insert(name);
        dtypes_.insert(t.dtype);
        return attn::okStatus();
    }
    FloatBuffer owned;
    const attn::Expected<const float*> data = file.floats(t, owned);
    if (!data)
        return data.error();
    if (!owned.empty()) {
        storage_->converted.push_back(std::move(owned));  // moving keeps the buffer where it is
    } else if (inPlaceFiles_.insert(it->second.second).second) {
        storage_->files.push_back(file.storage());
    }
    out.data = data.value();
    taken_.insert(name);
    dtypes_.insert(t.dtype);
    return attn::okStatus();
}

std::uint64_t SafetensorsShards::dataBytes() const
{
    std::uint64_t bytes = 0;
    for (const auto& file : files_)
        for (const SafetensorsTensor& t : file->tensors())
            bytes += t.byteSize();
    return bytes;
}

std::vector<std::string> SafetensorsShards::untaken() const
{
    std::vector<std::string> out;
    for (const auto& entry : byName_)
        if (!taken_.count(entry.first))
            out.push_back(entry.first);
    return out;
}

std::string SafetensorsShards::dtype() const
{
    std::string out;
    for (const std::string& d : dtypes_)
        out += (out.empty() ? "" : "+") + d;
    return out;
}

}  // namespace attnlab
