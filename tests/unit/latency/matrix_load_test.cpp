// Loading latency matrices: the three formats, and the errors a user sees on bad files.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "src/latency/matrix.hpp"

using threadmap::latency::load_matrix;
using threadmap::latency::MatrixFormat;
using threadmap::latency::parse_matrix_text;

namespace {

const std::string kData = std::string(THREADMAP_TEST_DATA) + "/latency/";

TEST(MatrixLoad, NviennotLowerTriangleBecomesSymmetric) {
  MatrixFormat format{};
  auto m = parse_matrix_text(",,\n10,,\n20,30,\n", "t.csv", &format);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(format, MatrixFormat::nviennot_csv);
  ASSERT_EQ(m->size(), 3u);
  EXPECT_EQ(m->cpus, (std::vector<int>{0, 1, 2}));
  EXPECT_DOUBLE_EQ(m->between(1, 0), 10);
  EXPECT_DOUBLE_EQ(m->between(0, 1), 10);
  EXPECT_DOUBLE_EQ(m->between(2, 1), 30);
  EXPECT_DOUBLE_EQ(m->between(1, 2), 30);
  EXPECT_DOUBLE_EQ(m->between(2, 2), 0);
  EXPECT_TRUE(std::isnan(m->between(0, 7)));
  EXPECT_EQ(m->source, "t.csv");
  EXPECT_NE(m->cell_statistic.find("mean"), std::string::npos);  // what the tool wrote
}

TEST(MatrixLoad, SquareCsvWithHeaderKeepsCpuNumbers) {
  MatrixFormat format{};
  auto m = parse_matrix_text("cpu,2,5\n2,0,41.5\n5,41.5,0\n", "sq.csv", &format);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(format, MatrixFormat::square_csv);
  EXPECT_EQ(m->cpus, (std::vector<int>{2, 5}));
  EXPECT_DOUBLE_EQ(m->between(5, 2), 41.5);
  EXPECT_EQ(m->index_of(5), 1);
  EXPECT_EQ(m->index_of(3), -1);
  EXPECT_EQ(m->cpu_set().to_list(), "2,5");
}

TEST(MatrixLoad, JsonDocument) {
  MatrixFormat format{};
  auto m = parse_matrix_text(R"({"schema":"threadmap.latency/1","cpu_model":"X","cpus":[0,1],)"
                             R"("matrix":[[0,12.5],[12.5,0]]})",
                             "m.json", &format);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(format, MatrixFormat::threadmap_json);
  EXPECT_EQ(m->cpu_model, "X");
  EXPECT_DOUBLE_EQ(m->between(0, 1), 12.5);
}

// Found by fuzzing: nlohmann throws out_of_range (not parse_error) for a number too large.
TEST(MatrixLoad, JsonNumberOverflowIsAnErrorNotACrash) {
  MatrixFormat format{};
  auto m = parse_matrix_text(R"({"cpus":[0,1],"matrix":[[0,1e999999],[1,0]]})", "m.json", &format);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("m.json"), std::string::npos);
}

TEST(MatrixLoad, RaggedNviennotRowNamesLineAndColumn) {
  auto m = parse_matrix_text(",,\n10,,\n20,30\n", "ragged.csv");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().message,
            "cannot load latency matrix 'ragged.csv': line 3, column 3: row has 2 cells, "
            "expected 3");
}

TEST(MatrixLoad, NonNumericCellNamesLineAndColumn) {
  auto m = parse_matrix_text(",,\n10,,\n20,abc,\n", "bad.csv");
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("'bad.csv': line 3, column 2: 'abc' is not a latency"),
            std::string::npos)
      << m.error().message;
}

TEST(MatrixLoad, NegativeAndInfiniteCellsAreRejected) {
  EXPECT_FALSE(parse_matrix_text(",,\n-1,,\n2,3,\n", "neg.csv"));
  EXPECT_FALSE(parse_matrix_text(",,\ninf,,\n2,3,\n", "inf.csv"));
}

TEST(MatrixLoad, OutOfRangeCellsNameTheValue) {
  // nan, 1e30 ns (a unit mistake: no core-to-core latency is near 10 ms) and negative values.
  for (const char* cell : {"nan", "1e30", "10000001", "-0.5"}) {
    auto m = parse_matrix_text(std::string(",,\n") + cell + ",,\n2,3,\n", "range.csv");
    ASSERT_FALSE(m) << cell;
    EXPECT_NE(m.error().message.find(std::string("'") + cell + "' is not a latency"),
              std::string::npos)
        << m.error().message;
  }
  auto j = parse_matrix_text(R"({"cpus":[0,1],"matrix":[[0,1e30],[null,0]]})", "range.json");
  ASSERT_FALSE(j);
  EXPECT_NE(j.error().message.find("matrix[0][1] = 1e+30 is not a latency"), std::string::npos)
      << j.error().message;
  EXPECT_TRUE(parse_matrix_text(",,\n10000000,,\n2,3,\n", "edge.csv"));  // 10 ms: accepted
}

TEST(MatrixLoad, AllNullMatrixIsAnError) {
  auto m = parse_matrix_text(
      R"({"cpus":[0,1,2],"matrix":[[0,null,null],[null,0,null],[null,null,0]]})", "null.json");
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("no pair of CPUs has a latency"), std::string::npos)
      << m.error().message;
}

TEST(MatrixLoad, AsymmetricDirectionsAreAveragedAndSaid) {
  // 0<->1 given as 100 and 50 (2.0x apart), 0<->2 as 40 and 42 (within 10%: not counted).
  auto m = parse_matrix_text(R"({"cpus":[0,1,2],"matrix":[[0,100,40],[50,0,30],[42,30,0]]})",
                             "asym.json");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_DOUBLE_EQ(m->at(0, 1), 75.0);
  EXPECT_DOUBLE_EQ(m->at(1, 0), 75.0);
  ASSERT_EQ(m->load_notes.size(), 1u);
  EXPECT_NE(m->load_notes[0].find("1 of 3 CPU pairs differ by direction by more than 10% (up to "
                                  "2.0x): each pair's two directions were averaged"),
            std::string::npos)
      << m->load_notes[0];
  auto sym = parse_matrix_text(R"({"cpus":[0,1],"matrix":[[0,10],[10,0]]})", "sym.json");
  ASSERT_TRUE(sym);
  EXPECT_TRUE(sym->load_notes.empty());
}

TEST(MatrixLoad, WrongRowCountIsAnError) {
  auto m = parse_matrix_text(",,\n10,,\n", "short.csv");
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("needs 3 rows, the file has 2"), std::string::npos)
      << m.error().message;
}

TEST(MatrixLoad, SquareCsvRowLabelMustFollowHeader) {
  auto m = parse_matrix_text("cpu,0,1\n1,0,5\n0,5,0\n", "swapped.csv");
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("line 2, column 1"), std::string::npos) << m.error().message;
}

TEST(MatrixLoad, JsonSyntaxErrorNamesLine) {
  auto m = parse_matrix_text("{\n \"cpus\": [0,1],\n \"matrix\": [[0,1],[1,0]\n", "broken.json");
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("'broken.json': not valid JSON: it ends too early (at line 4"),
            std::string::npos)
      << m.error().message;
}

TEST(MatrixLoad, JsonMatrixOfWrongShape) {
  auto m = parse_matrix_text(R"({"cpus":[0,1],"matrix":[[0,1]]})", "shape.json");
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("one row per CPU"), std::string::npos) << m.error().message;
}

TEST(MatrixLoad, GarbageIsNotAMatrix) {
  EXPECT_FALSE(parse_matrix_text("hello,world\n", "x.csv"));
  EXPECT_FALSE(parse_matrix_text("   \n", "empty.csv"));
  EXPECT_FALSE(parse_matrix_text(",\n", "one.csv"));  // 1 CPU: nothing to measure between
}

TEST(MatrixLoad, MissingFileNamesPath) {
  auto m = load_matrix("/nonexistent/latency.csv");
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("/nonexistent/latency.csv"), std::string::npos);
}

TEST(MatrixLoad, EveryPublishedMatrixLoadsCompleteAndSymmetric) {
  for (const char* file : {"AMD_EPYC_7773X.csv", "AMD_Ryzen_9_7950X.csv", "Apple_M1_Pro.csv",
                           "Dual_AMD_EPYC_9754_128-Core_Processor_by-fwyzard.csv"}) {
    auto m = load_matrix(kData + file);
    ASSERT_TRUE(m) << m.error().message;
    for (std::size_t i = 0; i < m->size(); ++i) {
      for (std::size_t j = 0; j < m->size(); ++j) {
        ASSERT_FALSE(std::isnan(m->at(i, j))) << file << " " << i << "," << j;
        ASSERT_EQ(m->at(i, j), m->at(j, i));
        if (i != j) {
          ASSERT_GT(m->at(i, j), 0) << file;
        }
      }
    }
  }
}

}  // namespace
