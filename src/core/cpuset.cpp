// CpuSet on top of hwloc's bitmap: hwloc does the set algebra and the taskset-mask parsing;
// we add the kernel list syntax with strides, which hwloc's list parser does not accept, and
// error messages that name the offending item.
#include "threadmap/cpuset.hpp"

#include <hwloc.h>

#include <cctype>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <new>
#include <string>

#include "src/os/small_text.hpp"

namespace threadmap {
namespace {

hwloc_bitmap_t bm(void* p) { return static_cast<hwloc_bitmap_t>(p); }
hwloc_const_bitmap_t cbm(const void* p) { return static_cast<hwloc_const_bitmap_t>(p); }

// Largest CPU number we accept from text: far above any real machine, low enough that a typo
// like "0-99999999" cannot make us allocate a huge bitmap.
constexpr long kMaxCpuNumber = 1 << 20;

bool parse_number(std::string_view s, long& out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && out >= 0 && out <= kMaxCpuNumber;
}

// Digits only, but past kMaxCpuNumber: said as "too large", not as a malformed list.
bool too_large(std::string_view s) {
  long ignored = 0;
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos &&
         !parse_number(s, ignored);
}

}  // namespace

CpuSet::CpuSet() : bitmap_(hwloc_bitmap_alloc()) {
  // Out of memory: thrown, so the C API (c_api.cpp) can return ENOMEM instead of aborting.
  if (!bitmap_) throw std::bad_alloc();
}
CpuSet::CpuSet(std::initializer_list<int> cpus) : CpuSet() {
  for (int cpu : cpus) add(cpu);
}
CpuSet::~CpuSet() {
  if (bitmap_) hwloc_bitmap_free(bm(bitmap_));
}
CpuSet::CpuSet(const CpuSet& other) : bitmap_(hwloc_bitmap_dup(cbm(other.bitmap_))) {
  if (!bitmap_) throw std::bad_alloc();
}
CpuSet& CpuSet::operator=(const CpuSet& other) {
  if (this != &other) hwloc_bitmap_copy(bm(bitmap_), cbm(other.bitmap_));
  return *this;
}
// A moved-from CpuSet stays a valid empty set, so it never holds a null bitmap.
CpuSet::CpuSet(CpuSet&& other) : CpuSet() { std::swap(bitmap_, other.bitmap_); }
CpuSet& CpuSet::operator=(CpuSet&& other) noexcept {
  std::swap(bitmap_, other.bitmap_);
  return *this;
}

Result<CpuSet> CpuSet::parse_list(std::string_view text) {
  CpuSet set;
  std::string_view rest = os::trimmed(text);
  if (rest.empty()) return Error::invalid("empty CPU list");
  while (true) {
    size_t comma = rest.find(',');
    std::string_view item = os::trimmed(rest.substr(0, comma));
    auto bad = [&](const std::string& why) {
      return Error::invalid("bad CPU list item '" + std::string(item) + "' in '" +
                            std::string(text) + "': " + why);
    };
    if (item.empty()) return bad("empty item");
    static const std::string too_large_text =
        "too large (CPU numbers go up to " + std::to_string(kMaxCpuNumber) + ")";
    long first = 0, last = 0, stride = 1;
    size_t colon = item.find(':');
    std::string_view range = item.substr(0, colon);
    if (colon != std::string_view::npos) {
      if (!parse_number(item.substr(colon + 1), stride) || stride == 0)
        return bad("stride must be a positive number");
    }
    size_t dash = range.find('-');
    if (dash == std::string_view::npos) {
      if (too_large(range)) return bad(too_large_text);
      if (!parse_number(range, first)) return bad("not a CPU number");
      if (colon != std::string_view::npos) return bad("a stride needs a range (A-B:S)");
      last = first;
    } else {
      if (too_large(range.substr(0, dash)) || too_large(range.substr(dash + 1)))
        return bad(too_large_text);
      if (!parse_number(range.substr(0, dash), first) ||
          !parse_number(range.substr(dash + 1), last))
        return bad("not a range of CPU numbers");
      if (last < first) return bad("range end is below its start");
    }
    for (long cpu = first; cpu <= last; cpu += stride) set.add(static_cast<int>(cpu));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return set;
}

Result<CpuSet> CpuSet::parse_mask(std::string_view text) {
  std::string_view s = os::trimmed(text);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty()) return Error::invalid("empty CPU mask '" + std::string(text) + "'");
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ',')
      return Error::invalid("bad CPU mask '" + std::string(text) + "': '" + std::string(1, c) +
                            "' is not a hex digit");
  }
  // "ff,ffffffff" is the kernel's comma-separated 32-bit words; taskset accepts one long
  // hex string. Normalise to one string of hex digits, then let hwloc parse it.
  std::string digits;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    std::string_view word =
        s.substr(start, comma == std::string_view::npos ? s.npos : comma - start);
    if (word.empty() || (start > 0 && word.size() > 8))
      return Error::invalid("bad CPU mask '" + std::string(text) +
                            "': comma-separated words must be 1-8 hex digits");
    if (start > 0) digits.append(8 - word.size(), '0');
    digits.append(word);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (digits.size() * 4 > static_cast<size_t>(kMaxCpuNumber))
    return Error::invalid("CPU mask '" + std::string(text) + "' is too long");
  CpuSet set;
  if (hwloc_bitmap_taskset_sscanf(bm(set.bitmap_), digits.c_str()) < 0)
    return Error::invalid("bad CPU mask '" + std::string(text) + "'");
  return set;
}

Result<CpuSet> CpuSet::parse(std::string_view text) {
  std::string_view s = os::trimmed(text);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return parse_mask(s);
  return parse_list(s);
}

CpuSet CpuSet::from_vector(const std::vector<int>& cpus) {
  CpuSet set;
  for (int cpu : cpus) set.add(cpu);
  return set;
}

CpuSet CpuSet::range(int first, int last) {
  CpuSet set;
  if (first >= 0 && last >= first) hwloc_bitmap_set_range(bm(set.bitmap_), first, last);
  return set;
}

std::string CpuSet::to_list() const {
  if (empty()) return "";
  char* out = nullptr;
  if (hwloc_bitmap_list_asprintf(&out, cbm(bitmap_)) < 0 || !out) throw std::bad_alloc();
  std::string s(out);
  std::free(out);
  return s;
}

std::string CpuSet::to_mask() const {
  if (empty()) return "0x0";
  char* out = nullptr;
  if (hwloc_bitmap_taskset_asprintf(&out, cbm(bitmap_)) < 0 || !out) throw std::bad_alloc();
  std::string s(out);
  std::free(out);
  return s;
}

std::vector<int> CpuSet::to_vector() const {
  std::vector<int> v;
  v.reserve(count());
  for (int cpu = first(); cpu >= 0; cpu = next(cpu)) v.push_back(cpu);
  return v;
}

void CpuSet::add(int cpu) {
  if (cpu >= 0) hwloc_bitmap_set(bm(bitmap_), static_cast<unsigned>(cpu));
}
void CpuSet::remove(int cpu) {
  if (cpu >= 0) hwloc_bitmap_clr(bm(bitmap_), static_cast<unsigned>(cpu));
}
void CpuSet::clear() { hwloc_bitmap_zero(bm(bitmap_)); }
bool CpuSet::contains(int cpu) const {
  return cpu >= 0 && hwloc_bitmap_isset(cbm(bitmap_), static_cast<unsigned>(cpu));
}
bool CpuSet::empty() const { return hwloc_bitmap_iszero(cbm(bitmap_)); }
std::size_t CpuSet::count() const {
  int w = hwloc_bitmap_weight(cbm(bitmap_));
  return w < 0 ? 0 : static_cast<std::size_t>(w);
}
int CpuSet::first() const { return hwloc_bitmap_first(cbm(bitmap_)); }
int CpuSet::last() const { return hwloc_bitmap_last(cbm(bitmap_)); }
int CpuSet::next(int cpu) const { return hwloc_bitmap_next(cbm(bitmap_), cpu); }
bool CpuSet::is_subset_of(const CpuSet& other) const {
  return hwloc_bitmap_isincluded(cbm(bitmap_), cbm(other.bitmap_));
}
bool CpuSet::intersects(const CpuSet& other) const {
  return hwloc_bitmap_intersects(cbm(bitmap_), cbm(other.bitmap_));
}
CpuSet CpuSet::operator&(const CpuSet& other) const {
  CpuSet r;
  hwloc_bitmap_and(bm(r.bitmap_), cbm(bitmap_), cbm(other.bitmap_));
  return r;
}
CpuSet CpuSet::operator|(const CpuSet& other) const {
  CpuSet r;
  hwloc_bitmap_or(bm(r.bitmap_), cbm(bitmap_), cbm(other.bitmap_));
  return r;
}
CpuSet CpuSet::operator-(const CpuSet& other) const {
  CpuSet r;
  hwloc_bitmap_andnot(bm(r.bitmap_), cbm(bitmap_), cbm(other.bitmap_));
  return r;
}
CpuSet& CpuSet::operator&=(const CpuSet& other) {
  hwloc_bitmap_and(bm(bitmap_), cbm(bitmap_), cbm(other.bitmap_));
  return *this;
}
CpuSet& CpuSet::operator|=(const CpuSet& other) {
  hwloc_bitmap_or(bm(bitmap_), cbm(bitmap_), cbm(other.bitmap_));
  return *this;
}
CpuSet& CpuSet::operator-=(const CpuSet& other) {
  hwloc_bitmap_andnot(bm(bitmap_), cbm(bitmap_), cbm(other.bitmap_));
  return *this;
}
bool CpuSet::operator==(const CpuSet& other) const {
  return hwloc_bitmap_isequal(cbm(bitmap_), cbm(other.bitmap_));
}

}  // namespace threadmap
