/* When the signal mask is read from the kernel, and the TSC rule (kernel_word.h). */
#include "kernel_word.h"

#include <link.h>
#include <string.h>
#include <sys/prctl.h>

#include "../common/tm_prim.h"
#include "options.h"

_Atomic int tm__kernel_mask;
_Atomic int tm__tsc_may_fault;
_Atomic unsigned tm__kernel_items;
_Atomic unsigned tm__no_reuse;

void tm__stop_reuse(unsigned cause) {
  unsigned none = 0;
  atomic_compare_exchange_strong(&tm__no_reuse, &none, cause);
}

void tm__kernel_items_add(unsigned items) { atomic_fetch_or(&tm__kernel_items, items); }

/* The loader's load counter when the modules were last looked at (dlpi_adds). */
static _Atomic unsigned long long tm__modules_seen;

static void tm__kernel_mask_set(int reason) {
  int none = TM_KM_SHADOW;
  atomic_compare_exchange_strong_explicit(&tm__kernel_mask, &none, reason, memory_order_relaxed,
                                          memory_order_relaxed);
}

/* 1 when a PT_NOTE segment of the module holds Go's build-id note (owner "Go", type 4,
 * .note.go.buildid): the Go linker writes it into the binaries and shared libraries it links. */
static int tm__module_is_go(const struct dl_phdr_info *info) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
    const unsigned char *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      memcpy(&note, p, sizeof note);
      const unsigned char *name = p + sizeof note;
      size_t name_room = (note.n_namesz + 3u) & ~3u, desc_room = (note.n_descsz + 3u) & ~3u;
      if (name + name_room + desc_room > end) break;
      /* The Go linker writes the owner as "Go\0\0" (size 4); the ELF rule would say 3. */
      if (note.n_type == 4 && (note.n_namesz == 3 || note.n_namesz == 4) &&
          memcmp(name, "Go", 3) == 0)
        return 1;
      p = name + name_room + desc_room;
    }
  }
  return 0;
}

struct tm_module_scan {
  unsigned long long adds;
  int first, go;
};

static int tm__scan_one(struct dl_phdr_info *info, size_t size, void *arg) {
  struct tm_module_scan *scan = arg;
  if (scan->first) {
    scan->first = 0;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(unsigned long long))
      scan->adds = info->dlpi_adds;
  }
  if (tm__module_is_go(info)) {
    scan->go = 1;
    return 1;
  }
  return 0;
}

/* The load counter alone (first module only). */
static int tm__adds_only(struct dl_phdr_info *info, size_t size, void *arg) {
  if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(unsigned long long))
    *(unsigned long long *)arg = info->dlpi_adds;
  return 1;
}

void tm__kernel_word_modules(void) {
  if (tm__kernel_mask_on() || tm__option(TM_OPT_KERNEL_MASK) != -1) return;
  unsigned long long adds = 0;
  dl_iterate_phdr(tm__adds_only, &adds);
  if (adds != 0 && adds == atomic_load_explicit(&tm__modules_seen, memory_order_relaxed)) return;
  struct tm_module_scan scan = {0, 1, 0};
  dl_iterate_phdr(tm__scan_one, &scan);
  atomic_store_explicit(&tm__modules_seen, scan.adds, memory_order_relaxed);
  if (scan.go) tm__kernel_mask_set(TM_KM_RUNTIME);
}

void tm__kernel_word_init(void) {
  long long opt = tm__option(TM_OPT_KERNEL_MASK);
  if (opt == 1 || tm__option(TM_OPT_VERIFY_MS) == 0) tm__kernel_mask_set(TM_KM_OPTION);
  if (opt == -1) tm__kernel_word_modules();
  /* The TSC state is copied by clone: the first creator's is what its threads get. */
  int mode = PR_TSC_ENABLE;
  if (tm__prim_prctl(PR_GET_TSC, (unsigned long)&mode, 0, 0, 0) == 0) tm__note_tsc((unsigned)mode);
}

void tm__kernel_word_evidence(void) {
  if (tm__option(TM_OPT_KERNEL_MASK) == -1) tm__kernel_mask_set(TM_KM_EVIDENCE);
}

void tm__note_tsc(unsigned long mode) {
  if (mode == PR_TSC_SIGSEGV) atomic_store_explicit(&tm__tsc_may_fault, 1, memory_order_relaxed);
}
