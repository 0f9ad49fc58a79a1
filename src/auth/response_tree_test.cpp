// The server's side of batched signatures (docs/protocol.md §13.3): the tree builder makes
// exactly the roots, audit paths and headers of the contract's response-tree-vectors.json
// (an independent generator's), signed with its key; and every path it makes folds back
// to its root, where a changed index, size or hash does not.
#include "auth/response_tree.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "auth/request_signature.h"
#include "auth/response_key.h"
#include "auth/response_signature.h"
#include "auth/response_signer.h"

namespace licensed {
namespace {

boost::json::object load_tree_vectors() {
  std::ifstream in(std::string(LICENSED_SPEC_DIR) + "/response-tree-vectors.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return boost::json::parse(ss.str()).as_object();
}

std::string str(const boost::json::value& v, const char* key) {
  const auto& s = v.at(key).as_string();
  return {s.data(), s.size()};
}

std::string hex_of(const TreeHash& h) {
  return to_hex(h.data(), h.size());
}

std::vector<TreeHash> leaves_of(size_t n) {
  std::vector<TreeHash> leaves;
  for (size_t i = 0; i < n; ++i) leaves.push_back(tree_leaf_hash("answer " + std::to_string(i)));
  return leaves;
}

// The vectors' cases grouped by tree size; each size lists every leaf, in index order.
std::map<uint64_t, std::vector<boost::json::value>> trees_of(const boost::json::object& vectors) {
  std::map<uint64_t, std::vector<boost::json::value>> trees;
  for (const auto& c : vectors.at("cases").as_array()) {
    trees[static_cast<uint64_t>(c.at("treeSize").as_int64())].push_back(c);
  }
  return trees;
}

TEST(ResponseTreeBuilder, BuildsEveryVectorTreesRootAndAuditPaths) {
  const auto trees = trees_of(load_tree_vectors());
  ASSERT_EQ(trees.size(), 5u);  // n = 1, 2, 3, 5, 8
  for (const auto& [size, cases] : trees) {
    SCOPED_TRACE("n = " + std::to_string(size));
    ASSERT_EQ(cases.size(), size);
    std::vector<TreeHash> leaves;
    for (const auto& c : cases) leaves.push_back(tree_leaf_hash(str(c, "signingString")));
    const auto built = build_tree(leaves);
    ASSERT_TRUE(built.has_value());
    ASSERT_EQ(built->paths.size(), size);
    for (size_t i = 0; i < size; ++i) {
      const auto& c = cases[i];
      ASSERT_EQ(static_cast<size_t>(c.at("index").as_int64()), i);
      EXPECT_EQ(hex_of(built->root), str(c, "rootHash"));
      std::vector<std::string> path;
      for (const TreeHash& h : built->paths[i]) path.push_back(hex_of(h));
      std::vector<std::string> expected;
      for (const auto& h : c.at("path").as_array()) expected.emplace_back(h.as_string());
      EXPECT_EQ(path, expected) << "leaf " << i;
      EXPECT_EQ(tree_signing_string(size, built->root), str(c, "treeString"));
    }
  }
}

// Ed25519 is deterministic: signing the vectors' tree strings with their key gives their
// signatures, so the server's whole batched header is the generator's, byte for byte.
TEST(ResponseTreeBuilder, SignsEveryVectorTreeIntoTheVectorsExactHeaders) {
  const auto vectors = load_tree_vectors();
  auto key = ResponseKey::from_pem(str(vectors, "privateKeyPem"), "the vectors");
  ASSERT_TRUE(key.ok()) << key.error().message;
  const ResponseSigner signer({std::move(key.value())});
  for (const auto& [size, cases] : trees_of(vectors)) {
    std::vector<TreeHash> leaves;
    for (const auto& c : cases) leaves.push_back(tree_leaf_hash(str(c, "signingString")));
    const auto built = build_tree(leaves);
    ASSERT_TRUE(built.has_value());
    const auto signature =
        signer.sign_message(ResponseAlgorithm::kEd25519, tree_signing_string(size, built->root));
    ASSERT_TRUE(signature.has_value());
    for (size_t i = 0; i < size; ++i) {
      const auto& c = cases[i];
      const TreePosition position{static_cast<uint32_t>(i), static_cast<uint32_t>(size),
                                  built->paths[i]};
      EXPECT_EQ(format_response_signature(str(vectors, "kid"), std::stoll(str(c, "t")), *signature,
                                          ResponseAlgorithm::kEd25519, position),
                str(c, "header"))
          << i << "/" << size;
    }
  }
}

TEST(ResponseTreeBuilder, EveryLeafOfTreesOfOneTo300LeavesFoldsToTheRoot) {
  for (size_t n = 1; n <= 300; ++n) {
    const auto leaves = leaves_of(n);
    const auto built = build_tree(leaves);
    ASSERT_TRUE(built.has_value());
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(tree_root_from_path(leaves[i], i, n, built->paths[i]), built->root)
          << i << "/" << n;
    }
  }
}

TEST(ResponseTreeBuilder, APathFoldsToAnotherRootUnderAnotherIndexLeafOrHash) {
  for (const size_t n : {2u, 3u, 5u, 8u, 13u, 64u, 100u}) {
    const auto leaves = leaves_of(n);
    const auto built = build_tree(leaves);
    ASSERT_TRUE(built.has_value());
    for (size_t i = 0; i < n; ++i) {
      SCOPED_TRACE(std::to_string(i) + "/" + std::to_string(n));
      const auto& path = built->paths[i];
      EXPECT_NE(tree_root_from_path(leaves[i], (i + 1) % n, n, path), built->root);
      // (Under size n + 1 some paths do fold to the same root: the tree string signs n,
      // which is why a changed size fails, ResponseTreeVectors.EveryMustFailCaseFailsToVerify.)
      EXPECT_NE(tree_root_from_path(leaves[(i + 1) % n], i, n, path), built->root);
      auto flipped = path;
      flipped.front()[0] ^= 0x01;
      EXPECT_NE(tree_root_from_path(leaves[i], i, n, flipped), built->root);
      auto shorter = path;
      shorter.pop_back();
      EXPECT_FALSE(tree_root_from_path(leaves[i], i, n, shorter).has_value());
      auto longer = path;
      longer.push_back(leaves[i]);
      EXPECT_FALSE(tree_root_from_path(leaves[i], i, n, longer).has_value());
    }
  }
}

TEST(ResponseTreeBuilder, ATreeOfOneLeafIsTheLeafWithAnEmptyPathAndNoLeavesNoTree) {
  const auto leaves = leaves_of(1);
  const auto built = build_tree(leaves);
  ASSERT_TRUE(built.has_value());
  EXPECT_EQ(built->root, leaves[0]);
  EXPECT_TRUE(built->paths.at(0).empty());
  EXPECT_FALSE(build_tree({}).has_value());
}

TEST(ResponseTreeBuilder, ATreeOf4096LeavesHasPathsOfTwelveHashes) {
  const auto leaves = leaves_of(4096);
  const auto built = build_tree(leaves);
  ASSERT_TRUE(built.has_value());
  for (size_t i : {0u, 1u, 2047u, 4095u}) {
    EXPECT_EQ(built->paths[i].size(), 12u);
    EXPECT_EQ(tree_root_from_path(leaves[i], i, 4096, built->paths[i]), built->root);
  }
}

}  // namespace
}  // namespace licensed
