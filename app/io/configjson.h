// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The small pieces every model family's config.json reader shares: a
// message naming the file, a value as a message shows it, and a whole-number
// setting checked against its range.

#include "expected.h"

#include <QJsonObject>
#include <QJsonValue>

#include <string>
#include <string_view>

namespace attnlab {

// "config.json: what".
attn::Error configFail(std::string_view file, const std::string& what);

// A config value as a message shows it: 12, 7.5, "abc", true, null, a list,
// an object.
std::string configValueText(const QJsonValue& v);

// `key` of `config` as a whole number from 1 to `maximum`: "no key" when it
// is missing, "key must be a whole number from 1 to maximum, not ..." when
// it is anything else (null included).
attn::Status readConfigCount(std::string_view file, const QJsonObject& config, const char* key, int maximum,
                             int& out);

}  // namespace attnlab
