// Fuzzes the Merkle tree of batched answer signatures (docs/protocol.md §13.3): the
// builder the server signs with and the path folding every client verifies with, on
// trees and paths of the fuzzer's choosing.
//
// The input: two bytes give a tree size (1-4096) and an index; the rest is read both as
// the leaves' contents (one leaf per 8 bytes, repeated to fill the tree) and as a forged
// audit path (whole 32-byte hashes). Invariants, besides crashes, leaks and UB: every
// leaf's built path folds to the built root, under its own index and size only; a path
// of the wrong length folds to nothing; and the forged path folds to the root only when
// it is that leaf's genuine path (a second preimage of SHA-256 otherwise).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "auth/response_tree.h"
#include "fuzz_checks.h"

namespace licensed::fuzz {
namespace {

// Trees up to 512 leaves keep each run around a millisecond; the unit tests build 4096.
constexpr size_t kMaxTreeSize = 512;

std::vector<TreeHash> leaves_of(std::string_view bytes, size_t n) {
  std::vector<TreeHash> leaves;
  leaves.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t at = bytes.empty() ? 0 : (i * 8) % bytes.size();
    leaves.push_back(tree_leaf_hash(std::to_string(i) + ":" + std::string(bytes.substr(at, 8))));
  }
  return leaves;
}

std::vector<TreeHash> hashes_of(std::string_view bytes) {
  std::vector<TreeHash> out(bytes.size() / 32);
  for (size_t i = 0; i < out.size(); ++i) {
    for (size_t j = 0; j < 32; ++j) out[i][j] = static_cast<uint8_t>(bytes[i * 32 + j]);
  }
  return out;
}

// Folding tree sizes near the fuzzer's own: the size is public, not trusted.
void check_built_tree(const std::vector<TreeHash>& leaves, size_t index) {
  const size_t n = leaves.size();
  const auto built = build_tree(leaves);
  require(built.has_value() && built->paths.size() == n, "no tree built over leaves");
  const auto& path = built->paths[index];
  require(tree_root_from_path(leaves[index], index, n, path) == built->root,
          "a built path does not fold to the built root");
  if (n > 1) {
    require(tree_root_from_path(leaves[index], (index + 1) % n, n, path) != built->root,
            "a path folds to the root under another index");
    auto shorter = path;
    shorter.pop_back();
    require(!tree_root_from_path(leaves[index], index, n, shorter).has_value(),
            "a path one hash short folds to a root");
  }
  auto longer = path;
  longer.push_back(built->root);
  require(!tree_root_from_path(leaves[index], index, n, longer).has_value(),
          "a path one hash long folds to a root");
  require(!tree_root_from_path(leaves[index], n, n, path).has_value(),
          "an index past the tree folds to a root");
}

}  // namespace
}  // namespace licensed::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace licensed;
  using namespace licensed::fuzz;
  if (size < 3) return 0;
  const size_t n = 1 + ((static_cast<size_t>(data[0]) << 8 | data[1]) % kMaxTreeSize);
  const size_t index = data[2] % n;
  const std::string_view rest(reinterpret_cast<const char*>(data + 3), size - 3);
  const auto leaves = leaves_of(rest, n);
  check_built_tree(leaves, index);

  // The rest as an attacker's path, folded under the fuzzer's index and size: what a
  // client does with the header's tree= and path=.
  const auto forged = hashes_of(rest);
  const auto root = tree_root_from_path(leaves[index], index, n, forged);
  if (root) {
    const auto built = build_tree(leaves);
    require(forged.size() == built->paths[index].size(), "a path of the wrong length folds");
    require(*root != built->root || forged == built->paths[index],
            "a forged path folds to the genuine root");
  }
  return 0;
}
