// SPDX-License-Identifier: GPL-3.0-or-later
// The reaper frees on its own thread, in the order handed over, and drain()
// returns once everything handed over before it is freed.

#include "reaper.h"

#include <QtTest>

#include <atomic>
#include <thread>
#include <vector>

using namespace attnlab;

namespace {

// Records, when destroyed, the thread and the order it was destroyed in.
struct Tracked {
    std::vector<int>* order;
    std::thread::id* thread;
    int id;
    ~Tracked()
    {
        order->push_back(id);
        *thread = std::this_thread::get_id();
    }
};

}  // namespace

class TestReaper : public QObject {
    Q_OBJECT
private slots:
    void freesOnItsThreadInOrder();
    void sharedLargeGoesToTheReaper();
    void destructionFreesWhatIsQueued();
};

void TestReaper::freesOnItsThreadInOrder()
{
    Reaper reaper;
    std::vector<int> order;
    std::thread::id thread;
    for (int i = 0; i < 5; ++i) {
        Tracked* t = new Tracked{&order, &thread, i};
        reaper.dispose([t] { delete t; });
    }
    reaper.drain();
    QCOMPARE(order, (std::vector<int>{0, 1, 2, 3, 4}));
    QVERIFY(thread != std::thread::id());
    QVERIFY(thread != std::this_thread::get_id());
}

void TestReaper::sharedLargeGoesToTheReaper()
{
    std::vector<int> order;
    std::thread::id smallThread, largeThread;
    {
        auto small = shareLarge(Tracked{&order, &smallThread, 1}, kLargeBytes - 1);
        auto large = shareLarge(Tracked{&order, &largeThread, 2}, kLargeBytes);
        order.clear();  // the temporaries moved from
    }
    Reaper::instance().drain();
    QCOMPARE(order.size(), std::size_t(2));
    QCOMPARE(smallThread, std::this_thread::get_id());  // freed where it was let go
    QVERIFY(largeThread != std::this_thread::get_id());
}

void TestReaper::destructionFreesWhatIsQueued()
{
    std::vector<int> order;
    std::thread::id thread;
    {
        Reaper reaper;
        for (int i = 0; i < 3; ++i) {
            Tracked* t = new Tracked{&order, &thread, i};
            reaper.dispose([t] { delete t; });
        }
    }
    QCOMPARE(order, (std::vector<int>{0, 1, 2}));
}

QTEST_APPLESS_MAIN(TestReaper)
#include "tst_reaper.moc"
