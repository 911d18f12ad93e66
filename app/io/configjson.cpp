// SPDX-License-Identifier: GPL-3.0-or-later
#include "configjson.h"

#include "safetensors.h"

#include <QString>

#include <cmath>

namespace attnlab {

attn::Error configFail(std::string_view file, const std::string& what)
{
    return attn::Error{std::string(file) + ": " + what};
}

std::string configValueText(const QJsonValue& v)
{
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 17).toStdString();
    if (v.isString())
        return "\"" + shownText(v.toString().toStdString()) + "\"";
    if (v.isBool())
        return v.toBool() ? "true" : "false";
    if (v.isArray())
        return "a list";
    return v.isObject() ? "an object" : "null";
}

attn::Status readConfigCount(std::string_view file, const QJsonObject& config, const char* key, int maximum,
                             int& out)
{
    const QJsonValue v = config.value(QLatin1String(key));
    if (v.isUndefined())
        return configFail(file, std::string("no ") + key);
    const double d = v.toDouble(-1);
    if (!v.isDouble() || !(d >= 1 && d <= maximum) || d != std::floor(d))
        return configFail(file, std::string(key) + " must be a whole number from 1 to "
                                    + std::to_string(maximum) + ", not " + configValueText(v));
    out = int(d);
    return attn::okStatus();
}

}  // namespace attnlab
