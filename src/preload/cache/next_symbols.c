/* The next definition of each wrapped function, looked up in the loaded objects' own symbol
 * tables. dlsym(RTLD_NEXT) costs ~900 instructions a call (its error-catching frame, the
 * loader's generic lookup over every object of the scope); the cache wraps ~90 functions and
 * looks every one up at start-up, which every process that loads the library pays (a `true`
 * in a shell script, a compiler under `threadmap run --thread-cache`). Here the objects after
 * this library are listed once (dl_iterate_phdr: for the objects loaded with the program that
 * is the loader's search order, main, preloads, then their dependencies breadth first) and a
 * name is looked up in each one's GNU hash table (~100 instructions), accepting what dlsym
 * accepts: a defined global or weak symbol, its default version when it has versions. What
 * this cannot answer exactly goes to dlsym: an IFUNC (its resolver must run), an object
 * without a GNU hash table, a name defined nowhere after us, a call while the list is read.
 * Tables are read only: no allocation, no lock once the list is made. */
#include "next_symbols.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define TM_NEXT_OBJECTS 64 /* more (a program with many libraries): every lookup is dlsym's */

/* One loaded object after this library: where its dynamic symbols are. */
struct tm_next_object {
  uintptr_t base;
  const ElfW(Sym) * symtab;
  const char *strtab;
  const uint32_t *gnu_hash;
  const ElfW(Half) * versym;
};

static struct tm_next_object tm__objects[TM_NEXT_OBJECTS];
static int tm__n_objects;
static int tm__objects_exact; /* every object after us was listed and has a GNU hash table */
static _Atomic int tm__objects_state; /* 0 not read, 1 reading, 2 read */
static _Atomic unsigned tm__from_tables, tm__from_dlsym;

/* A dynamic entry's address: the loader rewrites most of them to absolute addresses when it
 * relocates the object, but not all objects' (a read-only dynamic section keeps offsets). */
static uintptr_t tm__dyn_address(uintptr_t base, ElfW(Addr) value) {
  return value < base ? base + value : value;
}

static int tm__object_has(const struct dl_phdr_info *info, uintptr_t address) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && address >= lo && address < lo + ph->p_memsz) return 1;
  }
  return 0;
}

/* Fills OBJECT from INFO's dynamic section; 0 when it has no GNU hash table or symbols. */
static int tm__object_read(const struct dl_phdr_info *info, struct tm_next_object *object) {
  memset(object, 0, sizeof *object);
  object->base = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    const ElfW(Dyn) *dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    for (; dyn->d_tag != DT_NULL; ++dyn) {
      uintptr_t at = tm__dyn_address(object->base, dyn->d_un.d_ptr);
      if (dyn->d_tag == DT_SYMTAB) object->symtab = (const ElfW(Sym) *)at;
      if (dyn->d_tag == DT_STRTAB) object->strtab = (const char *)at;
      if (dyn->d_tag == DT_GNU_HASH) object->gnu_hash = (const uint32_t *)at;
      if (dyn->d_tag == DT_VERSYM) object->versym = (const ElfW(Half) *)at;
    }
  }
  return object->symtab && object->strtab && object->gnu_hash;
}

struct tm_walk {
  uintptr_t ours; /* an address inside this library */
  int after_ours;
};

static int tm__list_object(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  struct tm_walk *walk = context;
  if (!walk->after_ours) {
    walk->after_ours = tm__object_has(info, walk->ours);
    return 0;
  }
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  if (strncmp(name, "linux-vdso", 10) == 0 || strncmp(name, "linux-gate", 10) == 0)
    return 0; /* the vDSO is in no search scope */
  if (tm__n_objects == TM_NEXT_OBJECTS || !tm__object_read(info, &tm__objects[tm__n_objects])) {
    tm__objects_exact = 0;
    return 1;
  }
  ++tm__n_objects;
  return 0;
}

/* 1 once the list is read (by this call or an earlier one); 0 while another thread reads it. */
static int tm__objects_ready(void) {
  int state = atomic_load_explicit(&tm__objects_state, memory_order_acquire);
  if (state == 2) return 1;
  if (state == 1 || !atomic_compare_exchange_strong(&tm__objects_state, &state, 1)) return 0;
  struct tm_walk walk = {(uintptr_t)&tm__objects_ready, 0};
  tm__objects_exact = 1;
  dl_iterate_phdr(tm__list_object, &walk);
  if (!walk.after_ours) tm__objects_exact = 0; /* not found ourselves: dlsym decides */
  atomic_store_explicit(&tm__objects_state, 2, memory_order_release);
  return 1;
}

int tm__next_symbols_exact(void) { return tm__objects_ready() && tm__objects_exact; }

static uint32_t tm__gnu_hash(const char *name) {
  uint32_t h = 5381;
  for (const unsigned char *p = (const unsigned char *)name; *p; ++p) h = h * 33 + *p;
  return h;
}

/* What dlsym accepts of symbol INDEX: -1 no, 1 yes, 2 a versioned default (taken when no
 * unversioned definition follows: the loader's rule), 3 an IFUNC or unique symbol (dlsym's). */
static int tm__symbol_fits(const struct tm_next_object *o, uint32_t index) {
  const ElfW(Sym) *sym = &o->symtab[index];
  int type = ELF64_ST_TYPE(sym->st_info), bind = ELF64_ST_BIND(sym->st_info);
  if (sym->st_shndx == SHN_UNDEF || (sym->st_value == 0 && sym->st_shndx != SHN_ABS)) return -1;
  if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE && type != STT_GNU_IFUNC)
    return -1;
  if (bind != STB_GLOBAL && bind != STB_WEAK) return bind == STB_GNU_UNIQUE ? 3 : -1;
  if (type == STT_GNU_IFUNC) return 3;
  if (o->versym == NULL || (o->versym[index] & 0x7fff) < 2) return 1;
  return (o->versym[index] & 0x8000) ? -1 : 2; /* a hidden (non-default) version: never */
}

/* NAME in object O: 1 found (*OUT), 0 not defined there, -1 only dlsym can say. */
static int tm__object_lookup(const struct tm_next_object *o, const char *name, uint32_t hash,
                             void **out) {
  const uint32_t *ht = o->gnu_hash;
  uint32_t nbuckets = ht[0], symoffset = ht[1], bloom_size = ht[2], shift = ht[3];
  const ElfW(Addr) *bloom = (const ElfW(Addr) *)(const void *)&ht[4];
  const uint32_t *buckets = (const uint32_t *)(const void *)&bloom[bloom_size];
  const uint32_t *chain = &buckets[nbuckets];
  const unsigned bits = sizeof(ElfW(Addr)) * 8;
  ElfW(Addr) word = bloom[(hash / bits) % bloom_size];
  ElfW(Addr) mask = ((ElfW(Addr))1 << (hash % bits)) | ((ElfW(Addr))1 << ((hash >> shift) % bits));
  if ((word & mask) != mask) return 0;
  uint32_t index = buckets[hash % nbuckets];
  if (index < symoffset) return 0;
  const ElfW(Sym) *versioned = NULL;
  for (;; ++index) {
    uint32_t h = chain[index - symoffset];
    if ((h | 1) == (hash | 1) && strcmp(name, o->strtab + o->symtab[index].st_name) == 0) {
      int fits = tm__symbol_fits(o, index);
      if (fits == 3) return -1;
      if (fits == 1) { /* an unversioned definition wins at once */
        *out = (void *)(o->base + o->symtab[index].st_value);
        return 1;
      }
      if (fits == 2 && versioned == NULL) versioned = &o->symtab[index];
    }
    if (h & 1) break;
  }
  if (versioned == NULL) return 0;
  *out = (void *)(o->base + versioned->st_value);
  return 1;
}

static void *tm__lookup_tables(const char *name, int *exact) {
  *exact = 0;
  if (!tm__objects_ready() || !tm__objects_exact) return NULL;
  uint32_t hash = tm__gnu_hash(name);
  for (int i = 0; i < tm__n_objects; ++i) {
    void *found = NULL;
    int r = tm__object_lookup(&tm__objects[i], name, hash, &found);
    if (r < 0) return NULL;
    if (r > 0) {
      *exact = 1;
      return found;
    }
  }
  *exact = 1; /* defined nowhere after us (a failed dlsym would allocate its error text) */
  return NULL;
}

void *tm__next_symbol(void **slot, const char *name) {
  void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (fn != NULL) return fn;
  int exact;
  fn = tm__lookup_tables(name, &exact);
  if (exact) {
    atomic_fetch_add_explicit(&tm__from_tables, 1, memory_order_relaxed);
  } else {
    fn = dlsym(RTLD_NEXT, name);
    atomic_fetch_add_explicit(&tm__from_dlsym, 1, memory_order_relaxed);
  }
  __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
  return fn;
}

void tm__next_symbol_counts(unsigned *from_tables, unsigned *from_dlsym) {
  *from_tables = atomic_load(&tm__from_tables);
  *from_dlsym = atomic_load(&tm__from_dlsym);
}

struct tm_find {
  uintptr_t address, found;
};

static int tm__find_object(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  struct tm_find *find = context;
  if (!tm__object_has(info, find->address)) return 0;
  find->found = info->dlpi_addr;
  return 1;
}

unsigned long tm__object_load_address(const void *address) {
  struct tm_find find = {(uintptr_t)address, 0};
  dl_iterate_phdr(tm__find_object, &find);
  return find.found;
}
