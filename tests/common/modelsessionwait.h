// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the model-session tests: waiting for the pass the last request
// asked for, and the ids of the tokens it ran over.

#include "modelsession.h"

#include <QTest>

#include <vector>

namespace modeltest {

// Waits for the pass the last request asked for.
inline bool settle(attnlab::ModelSession& session)
{
    return QTest::qWaitFor([&] { return !session.isComputing(); }, 10000) && session.result();
}

inline std::vector<int> ids(const attnlab::ModelSession& session)
{
    std::vector<int> out;
    for (const attnlab::ModelToken& t : session.resultTokens())
        out.push_back(t.id);
    return out;
}

}  // namespace modeltest
