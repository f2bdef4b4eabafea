// Our CSV and JSON files load back to the same matrix (writer latency/matrix_files, reader
// latency/matrix_load: one home), and a damaged document is refused saying what is wrong.
#include <gtest/gtest.h>

#include <cmath>

#include "src/latency/domains.hpp"
#include "src/latency/matrix_files.hpp"

using namespace threadmap;

namespace {

latency::Matrix sample_matrix() {
  latency::Matrix m = latency::make_matrix({0, 1, 4, 9});
  m.cpu_model = "Test CPU";
  double v = 10.125;
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      m.at(i, j) = m.at(j, i) = v;
      v *= 1.7;
    }
  }
  m.at(3, 2) = m.at(2, 3) = std::nan("");  // an unmeasured pair survives the round trip
  return m;
}

void expect_same(const latency::Matrix& a, const latency::Matrix& b) {
  ASSERT_EQ(a.cpus, b.cpus);
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = 0; j < a.size(); ++j) {
      if (std::isnan(a.at(i, j))) {
        EXPECT_TRUE(std::isnan(b.at(i, j)));
      } else {
        EXPECT_NEAR(a.at(i, j), b.at(i, j), 0.001);
      }
    }
  }
}

TEST(LatencyFiles, CsvRoundTrip) {
  auto m = sample_matrix();
  std::string csv = latency::latency_csv(m);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "cpu,0,1,4,9");
  latency::MatrixFormat format{};
  auto back = latency::parse_matrix_text(csv, "rt.csv", &format);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(format, latency::MatrixFormat::square_csv);
  expect_same(m, *back);
}

TEST(LatencyFiles, JsonRoundTripCarriesDomainsAndModel) {
  auto m = sample_matrix();
  auto d = latency::analyse_domains(m);
  auto doc = latency::latency_json(m, d, nullptr);
  EXPECT_EQ(doc["schema"], "threadmap.latency/1");
  EXPECT_EQ(doc["domains"].size(), d.domains.size());
  EXPECT_EQ(doc["levels"].size(), d.levels.size());
  latency::MatrixFormat format{};
  auto back = latency::parse_matrix_text(doc.dump(), "rt.json", &format);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(format, latency::MatrixFormat::threadmap_json);
  EXPECT_EQ(back->cpu_model, "Test CPU");
  expect_same(m, *back);
}

TEST(LatencyFiles, AJsonMatrixThatIsNotSquareIsRefused) {
  auto doc =
      latency::latency_json(sample_matrix(), latency::analyse_domains(sample_matrix()), nullptr);
  doc["matrix"].erase(doc["matrix"].size() - 1);  // one row short: not square any more
  auto back = latency::parse_matrix_text(doc.dump(), "damaged.json");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.error().code, std::errc::invalid_argument);
  EXPECT_NE(back.error().message.find("damaged.json"), std::string::npos) << back.error().message;
}

}  // namespace
