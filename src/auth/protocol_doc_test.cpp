// docs/protocol.md against the code: its worked examples (the fenced blocks whose info
// string names an example) recomputed with the functions the server and the SDK run, its
// error table against ErrorCode, and every "docs/protocol.md §N" a comment cites against
// its headings. A digit changed on either side fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "auth/request_signature.h"
#include "auth/response_signature.h"
#include "auth/response_tree.h"
#include "core/api_error.h"

namespace licensed {
namespace {

const std::filesystem::path kSourceDir = LICENSED_SOURCE_DIR;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string protocol_doc() {
  return read_text(kSourceDir / "docs" / "protocol.md");
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A fenced block: the last word of its info string ("text canonical-request" gives
// "canonical-request") and its lines joined by "\n", without a trailing newline.
struct Block {
  std::string tag;
  std::string text;
};

std::vector<Block> fenced_blocks(const std::string& doc) {
  std::vector<Block> blocks;
  std::optional<Block> open;
  std::vector<std::string> body;
  for (const std::string& line : lines_of(doc)) {
    if (line.rfind("```", 0) != 0) {
      if (open) body.push_back(line);
      continue;
    }
    if (open) {
      for (size_t i = 0; i < body.size(); ++i) open->text += (i ? "\n" : "") + body[i];
      blocks.push_back(std::move(*open));
      open.reset();
      body.clear();
      continue;
    }
    const std::string info = line.substr(3);
    const auto last_space = info.find_last_of(' ');
    open = Block{last_space == std::string::npos ? info : info.substr(last_space + 1), ""};
  }
  return blocks;
}

std::vector<Block> blocks_tagged(const std::string& tag) {
  std::vector<Block> found;
  for (Block& b : fenced_blocks(protocol_doc())) {
    if (b.tag == tag) found.push_back(std::move(b));
  }
  return found;
}

// "name: value" lines (the value as written after ": "); a name may repeat.
std::multimap<std::string, std::string> fields_of(const std::string& text) {
  std::multimap<std::string, std::string> fields;
  for (const std::string& line : lines_of(text)) {
    const auto colon = line.find(": ");
    EXPECT_NE(colon, std::string::npos) << "not a \"name: value\" line: " << line;
    if (colon == std::string::npos) continue;
    fields.emplace(line.substr(0, colon), line.substr(colon + 2));
  }
  return fields;
}

std::string field(const std::multimap<std::string, std::string>& fields, const std::string& name) {
  const auto it = fields.find(name);
  EXPECT_NE(it, fields.end()) << "the example does not state " << name;
  return it == fields.end() ? std::string() : it->second;
}

TEST(ProtocolDoc, RequestSigningExampleIsWhatTheCodeComputes) {
  const auto inputs = blocks_tagged("signing-inputs");
  const auto canonical = blocks_tagged("canonical-request");
  const auto headers = blocks_tagged("request-headers");
  ASSERT_EQ(inputs.size(), 1u);
  ASSERT_EQ(canonical.size(), 1u);
  ASSERT_EQ(headers.size(), 1u);

  const auto in = fields_of(inputs[0].text);
  const std::string method = field(in, "method");
  const std::string path = field(in, "path");
  const std::string key_id = field(in, "key id");
  const std::string timestamp = field(in, "timestamp");
  const std::string nonce = field(in, "nonce");
  const std::string body_hash = sha256_hex(field(in, "body"));
  const CanonicalRequest request{method, path, key_id, timestamp, nonce, body_hash};

  EXPECT_EQ(canonical[0].text, canonical_string(request));
  const auto sent = fields_of(headers[0].text);
  EXPECT_EQ(field(sent, "Content-Type"), "application/json");
  EXPECT_EQ(field(sent, "X-License-Key-Id"), key_id);
  EXPECT_EQ(field(sent, "X-License-Timestamp"), timestamp);
  EXPECT_EQ(field(sent, "X-License-Nonce"), nonce);
  EXPECT_EQ(field(sent, "X-License-Signature"), sign_request(field(in, "secret"), request));
}

// The prose around the examples repeats their hashes ("The body's SHA-256 is `...`"):
// each must be one a checked block holds.
TEST(ProtocolDoc, HashesQuotedInTheProseAreTheExamples) {
  std::string checked;
  for (const Block& b : fenced_blocks(protocol_doc())) {
    if (b.tag == "canonical-request" || b.tag == "request-headers" ||
        b.tag == "response-signing-string") {
      checked += b.text + "\n";
    }
  }
  const std::string doc = protocol_doc();
  static const std::regex quoted(R"(is\s+`([0-9a-f]{64})`)");
  int quotes = 0;
  for (std::sregex_iterator m(doc.begin(), doc.end(), quoted), none; m != none; ++m) {
    ++quotes;
    EXPECT_NE(checked.find((*m)[1]), std::string::npos) << (*m)[1] << " is in no example";
  }
  EXPECT_GE(quotes, 3);
}

// One worked answer: its inputs, then the blocks that follow them up to the next inputs.
struct ResponseExample {
  std::multimap<std::string, std::string> inputs;
  std::map<std::string, std::string> blocks;  // by tag
};

std::vector<ResponseExample> response_examples() {
  std::vector<ResponseExample> examples;
  for (const Block& b : fenced_blocks(protocol_doc())) {
    if (b.tag == "response-inputs") {
      examples.push_back({fields_of(b.text), {}});
    } else if (b.tag.rfind("response-", 0) == 0 && !examples.empty()) {
      EXPECT_TRUE(examples.back().blocks.emplace(b.tag, b.text).second)
          << "two " << b.tag << " blocks in one example";
    }
  }
  return examples;
}

std::string block(const ResponseExample& example, const std::string& tag) {
  const auto it = example.blocks.find(tag);
  EXPECT_NE(it, example.blocks.end()) << "the example has no " << tag << " block";
  return it == example.blocks.end() ? std::string() : it->second;
}

std::string hex(const TreeHash& h) {
  return to_hex(h.data(), h.size());
}

// The tree example's hashes, recomputed from its signed string and its header's path.
void expect_tree_hashes_match(const ResponseExample& example, const std::string& signing_string,
                              const ParsedResponseSignature& parsed) {
  ASSERT_TRUE(parsed.tree.has_value()) << "a tree example's header has no tree=";
  const TreePosition& tree = *parsed.tree;
  const auto hashes = fields_of(block(example, "response-tree-hashes"));
  const TreeHash leaf = tree_leaf_hash(signing_string);
  EXPECT_EQ(field(hashes, "leaf"), hex(leaf));
  std::vector<std::string> doc_path;
  for (auto [it, end] = hashes.equal_range("path"); it != end; ++it) doc_path.push_back(it->second);
  std::vector<std::string> header_path;
  for (const TreeHash& h : tree.path) header_path.push_back(hex(h));
  EXPECT_EQ(doc_path, header_path);
  const auto root = tree_root_from_path(leaf, tree.index, tree.size, tree.path);
  ASSERT_TRUE(root.has_value());
  EXPECT_EQ(field(hashes, "root"), hex(*root));
  EXPECT_EQ(block(example, "response-tree-string"), tree_signing_string(tree.size, *root));
}

TEST(ProtocolDoc, ResponseSignatureExamplesAreWhatTheCodeComputesAndVerifies) {
  const auto examples = response_examples();
  int plain = 0;
  int batched = 0;
  for (const ResponseExample& example : examples) {
    const std::string kid = field(example.inputs, "kid");
    SCOPED_TRACE(kid);
    const std::string bound = field(example.inputs, "request signature");
    const std::optional<std::string_view> binding =
        bound == "-" ? std::nullopt : std::optional<std::string_view>(bound);
    const unsigned status = static_cast<unsigned>(std::stoul(field(example.inputs, "status")));
    const int64_t t = std::stoll(field(example.inputs, "t"));
    const std::string body = field(example.inputs, "body");

    const std::string signing_string = response_signing_string(binding, status, t, body);
    EXPECT_EQ(block(example, "response-signing-string"), signing_string);

    const auto public_key = parse_pinned_response_key(field(example.inputs, "public key"));
    ASSERT_TRUE(public_key.has_value());
    // A kid of the default form is the one the key derives; the vectors' own ("tree-test",
    // "es256-test") are not.
    static const std::regex default_kid("(ed25519|es256)-[0-9a-f]{16}");
    if (std::regex_match(kid, default_kid)) {
      EXPECT_EQ(kid, public_key->kid);
    }
    PinnedResponseKey pinned = *public_key;
    pinned.kid = kid;

    const auto header = fields_of(block(example, "response-headers"));
    const std::string value = field(header, std::string(kResponseSignatureHeader));
    const auto parsed = parse_response_signature(value);
    ASSERT_TRUE(parsed.has_value()) << value;
    EXPECT_EQ(parsed->kid, kid);
    EXPECT_EQ(parsed->t, t);
    EXPECT_EQ(verify_response_signature({pinned}, value, binding, status, body), t);
    // Bound to the request's own signature: the same answer bound to "-" does not verify.
    if (binding) {
      EXPECT_FALSE(verify_response_signature({pinned}, value, std::nullopt, status, body));
    }
    if (example.blocks.count("response-tree-hashes") != 0) {
      expect_tree_hashes_match(example, signing_string, *parsed);
      ++batched;
    } else {
      EXPECT_FALSE(parsed->tree.has_value()) << "a tree header without its hashes";
      ++plain;
    }
  }
  EXPECT_GE(plain, 1);
  EXPECT_GE(batched, 1);
}

// ErrorCode has no list of its values: a value is one of them when error_name or
// http_status_of knows it (both switch over every enumerator, and -Wswitch flags one
// they miss), 1709 being the one whose answers equal the fallback's.
std::vector<ErrorCode> error_codes() {
  std::vector<ErrorCode> codes;
  for (int n = 1700; n < 1800; ++n) {
    const auto code = static_cast<ErrorCode>(n);
    if (code == ErrorCode::kInternal || error_name(code) != "LICENSE_API_INTERNAL" ||
        http_status_of(code) != 500) {
      codes.push_back(code);
    }
  }
  return codes;
}

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(' ');
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(' ') - first + 1);
}

TEST(ProtocolDoc, ErrorTableListsEveryErrorCodeWithItsNameAndHttpStatus) {
  std::map<int, std::vector<std::string>> rows;  // by code: the row's cells
  for (const std::string& line : lines_of(protocol_doc())) {
    static const std::regex row(R"(^\| (17[0-9][0-9]) \|)");
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    std::vector<std::string> cells;
    std::istringstream in(line.substr(1));
    for (std::string cell; std::getline(in, cell, '|');) cells.push_back(trimmed(cell));
    EXPECT_TRUE(rows.emplace(std::stoi(m[1]), cells).second) << "two rows for " << m[1];
  }
  const auto codes = error_codes();
  ASSERT_GE(codes.size(), 10u);
  for (const ErrorCode code : codes) {
    const int n = static_cast<int>(code);
    SCOPED_TRACE(n);
    const auto it = rows.find(n);
    ASSERT_NE(it, rows.end()) << "docs/protocol.md §5 has no row for " << n;
    ASSERT_GE(it->second.size(), 3u);
    EXPECT_EQ(it->second[1], "`" + std::string(error_name(code)) + "`");
    EXPECT_EQ(it->second[2].rfind(std::to_string(http_status_of(code)), 0), 0u) << it->second[2];
  }
}

// The project's own files, the ones whose comments cite documents: every regular file
// under these folders but the browser tests' node_modules.
std::vector<std::filesystem::path> source_files() {
  std::vector<std::filesystem::path> files;
  for (const char* dir : {"src", "client", "tests", "fuzz", "bench", "scripts"}) {
    std::filesystem::recursive_directory_iterator it(kSourceDir / dir), end;
    for (; it != end; ++it) {
      const auto& entry = *it;
      if (entry.path().filename() == "node_modules") it.disable_recursion_pending();
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
  }
  return files;
}

std::set<std::string> doc_sections() {
  std::set<std::string> sections;
  static const std::regex heading(R"(^#{2,3} §([0-9]+(\.[0-9]+)?)[. ])");
  for (const std::string& line : lines_of(protocol_doc())) {
    std::smatch m;
    if (std::regex_search(line, m, heading)) sections.insert(m[1]);
  }
  return sections;
}

// The sections one citation names: "docs/protocol.md §21.2, §21.5 and §22" names three,
// and a comment wrapped after "docs/protocol.md" still counts.
std::vector<std::string> cited_sections(const std::string& text) {
  static const std::regex citation(
      R"(docs/protocol\.md(?:\s|//|#|\*)+§[0-9]+(?:\.[0-9]+)?(?:(?:, |,? and |, §| or )§[0-9]+(?:\.[0-9]+)?)*)");
  static const std::regex section(R"(§([0-9]+(\.[0-9]+)?))");
  std::vector<std::string> cited;
  for (std::sregex_iterator c(text.begin(), text.end(), citation), none; c != none; ++c) {
    const std::string whole = c->str();
    for (std::sregex_iterator s(whole.begin(), whole.end(), section); s != none; ++s) {
      cited.push_back((*s)[1]);
    }
  }
  return cited;
}

// "§3.5" cited in a comment names a heading "## §3." / "### §3.5 ..." of the document.
TEST(ProtocolDoc, EverySectionCodeCitesExists) {
  const std::set<std::string> sections = doc_sections();
  ASSERT_GE(sections.size(), 19u);
  int citations = 0;
  for (const auto& path : source_files()) {
    for (const std::string& cited : cited_sections(read_text(path))) {
      ++citations;
      EXPECT_EQ(sections.count(cited), 1u)
          << path.string() << " cites §" << cited << ", which docs/protocol.md lacks";
    }
  }
  EXPECT_GT(citations, 0);
}

TEST(ProtocolDoc, ACitationOfAListNamesEachOfItsSections) {
  EXPECT_EQ(cited_sections("// docs/protocol.md §21.2, §21.5 and §22: files"),
            (std::vector<std::string>{"21.2", "21.5", "22"}));
  EXPECT_EQ(cited_sections("// as docs/protocol.md\n// §3.5 says."),
            (std::vector<std::string>{"3.5"}));
  EXPECT_TRUE(cited_sections("// §21.2 of nothing").empty());
}

// Code cites the project's document, never the contract kept outside the repository:
// its numbers differ from the document's, and a reader of this repository cannot open it.
// What on `line` cites that contract (the word spec, or contract, before a section sign
// or "section" and a number; or its file name), or "" when nothing does; a test name such as
// ...RuleOfSpecSection10 is not a citation. The patterns here, and the examples of the
// test below, are spelled so that this file does not match them itself.
std::string outside_citation(const std::string& line) {
  if (line.find("pec") == std::string::npos && line.find("ontract") == std::string::npos &&
      line.find("api.md") == std::string::npos) {
    return {};  // the regex below is slow; most lines cannot match it
  }
  static const std::regex outside(
      R"(\bspec(?:'s)? *(?:§|sections? +[0-9]|[0-9])|license-api\.md|\bcontract(?:'s)? *(?:§|sections? +[0-9]))",
      std::regex::icase);
  std::smatch m;
  return std::regex_search(line, m, outside) ? m.str() : std::string();
}

TEST(ProtocolDoc, NoSourceCitesTheContractOutsideTheRepository) {
  int found = 0;
  for (const auto& path : source_files()) {
    const std::vector<std::string> lines = lines_of(read_text(path));
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string cited = outside_citation(lines[i]);
      if (cited.empty()) continue;
      ++found;
      ADD_FAILURE() << path.string() << ":" << i + 1 << " cites the outside contract (\"" << cited
                    << "\"); cite docs/protocol.md §N instead";
    }
  }
  EXPECT_EQ(found, 0);
}

TEST(ProtocolDoc, TheOutsideContractsCitationsAreRecognisedAndTestNamesAreNot) {
  EXPECT_EQ(outside_citation("// the 1 MiB limit (spe"
                             "c §20)"),
            "spe"
            "c §");
  EXPECT_EQ(outside_citation("// Spe"
                             "c section 22: licensectl"),
            "Spe"
            "c section 2");
  EXPECT_EQ(outside_citation("# see license-api"
                             ".md §16.3"),
            "license-api"
            ".md");
  EXPECT_EQ(outside_citation("// keyed by its /64 (spe"
                             "c 21)"),
            "spe"
            "c 2");
  EXPECT_EQ(outside_citation("// the contract'"
                             "s sections 19 and 21"),
            "contract'"
            "s sections 1");
  EXPECT_EQ(outside_citation("// docs/protocol.md §22.3"), "");
  EXPECT_EQ(outside_citation("TEST(ServeSettings, EveryRuleOfSpecSection10) {"), "");
  EXPECT_EQ(outside_citation("// answered in the contract's order"), "");
}

}  // namespace
}  // namespace licensed
