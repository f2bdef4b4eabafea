// threadmap — C++20 API. Include this one header for CPU sets, topology, pinning and the
// threads of running processes. See threadmap.h for the C API with the same capabilities.
#pragma once

#include "threadmap/affinity.hpp"
#include "threadmap/cpuset.hpp"
#include "threadmap/process.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"
