// Interchangeable parts of the machine, for the exact solver. Two objects of one level (two
// cores of one L3, two L3s of one package...) are interchangeable when swapping their CPUs
// (first with first, second with second...) changes nothing the cost model can see: latencies
// to every other CPU, core and cache-domain membership, CPU kind, NUMA node, isolation and every
// thread's CPU limits. While both are empty, trying a thread on one of them is enough: the other
// branch is the same search up to that swap. On a topology model this cuts the first levels of
// the search from hundreds of CPUs to a handful; on a measured matrix few swaps are exact and
// little is cut, which is correct.
#pragma once

#include <vector>

#include "src/plan/problem.hpp"

namespace threadmap::plan {

/// One level of the machine hierarchy with its classes of interchangeable objects.
struct SymmetryLevel {
  std::vector<int> object_of;             ///< object of each candidate CPU
  std::vector<int> position;              ///< index of each CPU inside its object
  std::vector<std::vector<int>> objects;  ///< CPUs of each object, ascending
  std::vector<int> class_of;              ///< class of each object
  std::vector<std::vector<int>> classes;  ///< objects of each class, ascending
};

/// Every level of MachineModel::levels plus single CPUs, each with its classes.
struct MachineSymmetry {
  std::vector<SymmetryLevel> levels;
};

/// Finds the interchangeable objects; objects are only compared with objects of the same parent
/// (the next coarser level), and each candidate swap is verified exactly.
MachineSymmetry find_symmetry(const Problem& problem);

}  // namespace threadmap::plan
