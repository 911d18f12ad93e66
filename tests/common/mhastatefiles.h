// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// torch_mha_cases.json's cases (tests/data) as a user saves them from
// PyTorch: x.npy and the module's state_dict entries under their own names
// in a folder `state` (np.save writes a bias as a 1-D array, shape (k,)).

#include "npy.h"
#include "testdata.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include <string>

namespace mhatest {

inline QJsonObject torchCase(int index)
{
    return testdata::readJson("torch_mha_cases.json")["cases"].toArray()[index].toObject();
}

inline int torchCaseCount()
{
    return int(testdata::readJson("torch_mha_cases.json")["cases"].toArray().size());
}

inline bool writeBytes(const QString& path, const std::string& bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly)
           && file.write(bytes.data(), qint64(bytes.size())) == qint64(bytes.size());
}

inline bool writeNpyFile(const QString& path, const attn::Matrix& m)
{
    return writeBytes(path, attnlab::npyBytes(m));
}

// A vector as numpy saves a 1-D array, shape (k,): the (1, k) header with
// its shape rewritten, padded to the same length.
inline bool writeNpyVector(const QString& path, const attn::Matrix& row)
{
    std::string bytes = attnlab::npyBytes(row);
    const std::string from = "(1, " + std::to_string(row.cols()) + ")";
    const std::string to = "(" + std::to_string(row.cols()) + ",)";
    const std::size_t at = bytes.find(from);
    if (at == std::string::npos)
        return false;
    bytes.replace(at, from.size(), to);
    bytes.insert(bytes.find('\n', at), from.size() - to.size(), ' ');
    return writeBytes(path, bytes);
}

// dir/x.npy and dir/state/*.npy; dir/state must exist.
inline bool writeCaseState(const QJsonObject& c, const QString& dir)
{
    return writeNpyFile(dir + "/x.npy", testdata::toMatrix(c["x"]))
           && writeNpyFile(dir + "/state/in_proj_weight.npy", testdata::toMatrix(c["in_proj_weight"]))
           && writeNpyVector(dir + "/state/in_proj_bias.npy", testdata::toMatrix(c["in_proj_bias"]))
           && writeNpyFile(dir + "/state/out_proj.weight.npy", testdata::toMatrix(c["out_proj_weight"]))
           && writeNpyVector(dir + "/state/out_proj.bias.npy", testdata::toMatrix(c["out_proj_bias"]));
}

}  // namespace mhatest
