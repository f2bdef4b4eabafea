#include "tests/unit/golden/golden_table.hpp"

namespace threadmap::golden {

const std::vector<TopologyRow>& topology_rows() {
  static const std::vector<TopologyRow> rows = {
      {"amd-2x-epyc7763-zen3.xml", "2x AMD EPYC 7763", false, 2, {8}, 16, {0},
       "AMD EPYC 7763 spec page: 64 cores, 256MB L3 = 8 CCDs x 32MB, 8 cores per CCX. SMT off in "
       "this CPUID dump and one NUMA node (hwloc test README)"},
      {"amd-2x-epyc9654-zen4.xml", "2x AMD EPYC 9654", true, 2, {16}, 24, {0},
       "AMD EPYC 9654 spec page: 96 cores/192 threads, 384MB L3 = 12 CCDs x 32MB of 8 cores; "
       "CPUID dump: one NUMA node"},
      {"amd-4x-opteron6200-bulldozer-8numa.xml", "4x AMD Opteron 6276", false, 4, {8}, 8,
       {0, 1, 2, 3, 4, 5, 6, 7},
       "AMD Opteron 6200 guide: 16 cores as 2 dies of 8 (4 modules of 2 cores sharing L2, 8MB "
       "L3 per die), a NUMA node per die; no SMT"},
      {"amd-ryzen-ai9-hx370-zen5-hybrid.xml", "AMD Ryzen AI 9 HX 370", true, 1, {8, 16}, 2, {0},
       "AMD spec page: 12 cores/24 threads: 4 Zen5 on 16MB L3 + 8 Zen5c on 8MB L3"},
      {"dell-r740-2x-xeon-gold6230-snc2-2lm.xml", "Dell R740, 2x Xeon Gold 6230 SNC2", true, 2,
       {40}, 2, {0, 1, 2, 3},
       "Intel ARK Xeon Gold 6230: 20 cores/40 threads, 27.5MB L3; SNC2 = 2 NUMA nodes per socket; "
       "node numbers as the kernel gave them (os_index in the XML: L#1 is P#2)"},
      {"intel-2x-xeonmax9460-sapphirerapids.xml", "2x Intel Xeon Max 9460", true, 2, {80}, 2, {0},
       "Intel ARK Xeon Max 9460: 40 cores/80 threads, 97.5MB L3 per socket; CPUID dump: one node"},
      {"intel-i7-1370p-raptorlake-hybrid.xml", "Intel Core i7-1370P", true, 1, {20}, 1, {0},
       "Intel ARK i7-1370P: 6 P-cores (2 threads) + 8 E-cores, 20 threads, 24MB shared L3"},
      {"nvidia-dgx-spark-gb10-arm-hybrid.xml", "NVIDIA DGX Spark GB10", false, 1, {10}, 2, {0},
       "NVIDIA GB10 brief: 20 Arm cores (10 Cortex-X925 + 10 Cortex-A725), no SMT, 2 L3 "
       "clusters"},
      {"sgi-uv2000-24x-xeon-e5-4640.xml", "SGI UV2000, 24x Xeon E5-4640", true, 24, {16}, 24,
       {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
        12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23},
       "Intel ARK E5-4640: 8 cores/16 threads, 20MB L3; UV2000: one NUMA node per socket"},
      {"this-vm-kvm-2vcpu-epyc.xml", "this VM (KVM, 2 vCPUs)", false, 1, {2}, 1, {0},
       "our lstopo of the guest: 2 vCPUs given as 2 cores, no SMT"},
  };
  return rows;
}

const std::vector<MatrixRow>& matrix_rows() {
  static const std::vector<MatrixRow> rows = {
      {"AMD_EPYC_7773X.csv", "AMD EPYC 7773X", true, Siblings::half, -1, {16}, 1,
       "AMD spec page: 64 cores/128 threads, 8 CCDs of 8 cores (96MB L3 each)", {}},
      {"AMD_EPYC_7R13_48-Core_Processor.csv", "2x AMD EPYC 7R13", true, Siblings::half, -1, {16}, 2,
       "AWS: EPYC 7R13 = 48-core Milan (6 CCDs of 8 cores, 32MB L3 each), 2 sockets, SMT2", {}},
      {"AMD_Ryzen_9_5950X_3.40_GHz.csv", "AMD Ryzen 9 5950X", true, Siblings::half, -1, {16}, 1,
       "AMD spec page: 16 cores/32 threads, 2 CCDs of 8 cores", {}},
      {"AMD_Ryzen_9_7950X.csv", "AMD Ryzen 9 7950X", true, Siblings::adjacent, -1, {16}, 1,
       "AMD spec page: 16 cores/32 threads, 2 CCDs of 8 cores; numbering adjacent (Windows, the "
       "data README: cells i,i^1 are 5-11 ns)", {}},
      {"AMD_Ryzen_Threadripper_1950X.csv", "AMD Threadripper 1950X", true, Siblings::half, -1, {8}, 1,
       "AMD: 16 cores/32 threads, 2 dies x 2 CCX of 4 cores (8MB L3 per CCX)", {}},
      {"AWS_Graviton3.csv", "AWS Graviton3", false, Siblings::none, -1, {64}, 1,
       "AWS: 64 Neoverse V1 cores, one thread each, one 32MB shared L3 on a mesh", {}},
      {"Apple_M1_Pro.csv", "Apple M1 Pro (8-core)", false, Siblings::none, -1, {2, 3}, 1,
       "Apple: 8-core M1 Pro = 6 performance + 2 efficiency cores in clusters sharing L2, no "
       "SMT (clusters 2 + 3 + 3)",
       {{0, 1}, {2, 3, 4}, {5, 6, 7}}},
      {"Dual_AMD_EPYC_9754_128-Core_Processor_by-fwyzard.csv", "2x AMD EPYC 9754", true,
       Siblings::half, -1, {16}, 2,
       "AMD spec page: 128 Zen4c cores/256 threads, 16 CCDs x 2 CCX of 8 cores (16MB L3 each)", {}},
      {"Intel_Core_i9-12900K.csv", "Intel Core i9-12900K", true, Siblings::adjacent, 16, {24}, 1,
       "Intel ARK: 8 P-cores (2 threads) + 8 E-cores, 24 threads, one 30MB L3; Linux numbers a "
       "P-core's threads adjacently", {}},
      {"Intel_Core_i9-9900K_CPU_3.60_GHz.csv", "Intel Core i9-9900K", true, Siblings::adjacent, -1,
       {16}, 1, "Intel ARK: 8 cores/16 threads, one 16MB L3 ring; numbering i^1 (data README)", {}},
      {"Intel_R_Xeon_R_Platinum_8375C_CPU_2.90GHz.csv", "2x Intel Xeon Platinum 8375C", true,
       Siblings::half, -1, {64}, 2, "Intel/AWS: 32 cores/64 threads per socket, 54MB L3 per socket", {}},
      {"Intel_Xeon_W9-3475X_2.2GHz_36Cores_2023-Q2_by-ReinForce-II.csv", "Intel Xeon W9-3475X",
       false, Siblings::none, -1, {36}, 1,
       "Intel ARK: 36 cores/72 threads, one 82.5MB L3; the matrix has 36 rows: one thread per "
       "core measured, so no SMT pairs in it", {}},
  };
  return rows;
}

}  // namespace threadmap::golden
