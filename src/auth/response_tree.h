// The Merkle tree of batched answer signatures (docs/protocol.md §13.3): RFC 9162 section 2.1's
// leaf and node hashes, the root an inclusion proof folds to, and the string the batch's one
// signature covers. Shared by the server's batch signer and every verifier.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace licensed {

using TreeHash = std::array<uint8_t, 32>;

// SHA-256(0x00 || signing string): the leaf of one answer.
TreeHash tree_leaf_hash(std::string_view signing_string);
// SHA-256(0x01 || left || right).
TreeHash tree_node_hash(const TreeHash& left, const TreeHash& right);

// RFC 9162 section 2.1.3.2: the root that `leaf` at `index` of a tree of `size` leaves
// folds to along `path`; nullopt when index >= size or the path has the wrong length.
std::optional<TreeHash> tree_root_from_path(const TreeHash& leaf, uint64_t index, uint64_t size,
                                            const std::vector<TreeHash>& path);

// A whole tree as the batch signer builds it: RFC 9162 section 2.1.1's Merkle Tree Hash
// over the leaves, and section 2.1.3.1's inclusion proof of every leaf, in the order
// tree_root_from_path folds them.
struct BuiltTree {
  TreeHash root{};
  std::vector<std::vector<TreeHash>> paths;  // paths[i]: the audit path of leaf i
};
// `leaves` must not be empty (a tree of zero leaves signs nothing; nullopt).
std::optional<BuiltTree> build_tree(const std::vector<TreeHash>& leaves);

// "v1-response-tree\n<size>\n<lowercase hex root>".
std::string tree_signing_string(uint64_t size, const TreeHash& root);

}  // namespace licensed
