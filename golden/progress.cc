#include "golden/progress.h"

#include <atomic>

namespace qacc::golden {

namespace {
std::atomic<ProgressObserver*> g_observer{nullptr};
}  // namespace

ProgressScope::ProgressScope(ProgressObserver* observer) : previous_(g_observer.load()) {
  g_observer.store(observer);
}

ProgressScope::~ProgressScope() { g_observer.store(previous_); }

void ReportProgress(const char* what, const char* unit, uint64_t done, uint64_t total) {
  ProgressObserver* observer = g_observer.load(std::memory_order_acquire);
  if (observer != nullptr) observer->OnProgress(what, unit, done, total);
}

}  // namespace qacc::golden
