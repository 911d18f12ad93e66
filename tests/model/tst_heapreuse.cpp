// SPDX-License-Identifier: GPL-3.0-or-later
// keepFreedBuffersForReuse: after it, an 8 MiB buffer comes from the heap
// instead of a mapping of its own, and once freed it stays in the heap for
// the next one (glibc's own statistics, mallinfo2). Without it glibc maps
// such a buffer (its threshold starts at 128 KiB) and unmaps it when freed.
#include "heapreuse.h"

#include <QtTest>

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

using namespace attnlab;

class TestHeapReuse : public QObject {
    Q_OBJECT
private slots:
    void largeBuffersStayInTheHeap();
};

void TestHeapReuse::largeBuffersStayInTheHeap()
{
#if defined(__SANITIZE_ADDRESS__)
    QSKIP("AddressSanitizer's allocator stands in for glibc's");
#elif !defined(__GLIBC__)
    QSKIP("glibc's heap only");
#else
    constexpr std::size_t kSize = 8u << 20;
    {
        // Before: mapped on its own (hblkhd counts the mapped bytes).
        const std::size_t mappedBefore = mallinfo2().hblkhd;
        void* p = std::malloc(kSize);
        QVERIFY(p);
        QVERIFY(mallinfo2().hblkhd >= mappedBefore + kSize);
        std::free(p);
    }
    keepFreedBuffersForReuse();
    const std::size_t mappedBefore = mallinfo2().hblkhd;
    void* p = std::malloc(kSize);
    QVERIFY(p);
    std::memset(p, 1, kSize);
    QCOMPARE(mallinfo2().hblkhd, mappedBefore);  // from the heap
    std::free(p);
    QVERIFY(mallinfo2().fordblks >= kSize);  // kept, free, for the next buffer
    void* q = std::malloc(kSize);
    QVERIFY(q);
    QCOMPARE(mallinfo2().hblkhd, mappedBefore);
    std::free(q);
#endif
}

QTEST_APPLESS_MAIN(TestHeapReuse)
#include "tst_heapreuse.moc"
