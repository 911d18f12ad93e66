// SPDX-License-Identifier: GPL-3.0-or-later
#include "pyvalue.h"

namespace attnlab {

const PyValue* findKey(const PyValue& dict, std::string_view key)
{
    for (std::size_t i = dict.keys.size(); i-- > 0;)
        if (dict.keys[i] == key)
            return &dict.items[i];
    return nullptr;
}

}  // namespace attnlab
