#include "auth/response_tree.h"

#include "auth/request_signature.h"

namespace licensed {

namespace {

TreeHash prefixed_hash(uint8_t prefix, std::string_view a, std::string_view b = {}) {
  std::string input;
  input.reserve(1 + a.size() + b.size());
  input.push_back(static_cast<char>(prefix));
  input.append(a).append(b);
  return sha256(input);
}

std::string_view bytes_of(const TreeHash& h) {
  return {reinterpret_cast<const char*>(h.data()), h.size()};
}

// MTH(D[lo:hi]) (RFC 9162 2.1.1), appending to the path of every leaf below it the
// sibling hashes on its way up to this subtree's root: the deeper ones first, as
// PATH(m, D[n]) = PATH(m, D[0:k]) : MTH(D[k:n]) orders them.
TreeHash subtree_hash(const std::vector<TreeHash>& leaves, size_t lo, size_t hi,
                      std::vector<std::vector<TreeHash>>& paths) {
  if (hi - lo == 1) return leaves[lo];
  size_t k = 1;  // the largest power of two smaller than hi - lo
  while (k * 2 < hi - lo) k *= 2;
  const TreeHash left = subtree_hash(leaves, lo, lo + k, paths);
  const TreeHash right = subtree_hash(leaves, lo + k, hi, paths);
  for (size_t i = lo; i < lo + k; ++i) paths[i].push_back(right);
  for (size_t i = lo + k; i < hi; ++i) paths[i].push_back(left);
  return tree_node_hash(left, right);
}

}  // namespace

std::optional<BuiltTree> build_tree(const std::vector<TreeHash>& leaves) {
  if (leaves.empty()) return std::nullopt;
  BuiltTree tree;
  tree.paths.resize(leaves.size());
  tree.root = subtree_hash(leaves, 0, leaves.size(), tree.paths);
  return tree;
}

TreeHash tree_leaf_hash(std::string_view signing_string) {
  return prefixed_hash(0x00, signing_string);
}

TreeHash tree_node_hash(const TreeHash& left, const TreeHash& right) {
  return prefixed_hash(0x01, bytes_of(left), bytes_of(right));
}

std::optional<TreeHash> tree_root_from_path(const TreeHash& leaf, uint64_t index, uint64_t size,
                                            const std::vector<TreeHash>& path) {
  if (index >= size) return std::nullopt;
  uint64_t fn = index;
  uint64_t sn = size - 1;
  TreeHash r = leaf;
  for (const TreeHash& p : path) {
    if (sn == 0) return std::nullopt;  // the path is longer than the tree is deep
    if ((fn & 1) != 0 || fn == sn) {
      r = tree_node_hash(p, r);
      // A right-most node without a sibling at this level: climb until it has one.
      if ((fn & 1) == 0) {
        while ((fn & 1) == 0 && fn != 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      r = tree_node_hash(r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  if (sn != 0) return std::nullopt;  // the path stopped short of the root
  return r;
}

std::string tree_signing_string(uint64_t size, const TreeHash& root) {
  return "v1-response-tree\n" + std::to_string(size) + "\n" + to_hex(root.data(), root.size());
}

}  // namespace licensed
