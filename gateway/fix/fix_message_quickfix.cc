// Plain messages to and from QuickFIX's (fix_message_quickfix.h), and the
// plain Message's accessors (fix_engine.h). C++14: part of the QuickFIX
// island (STYLE.md §10).

#include "gateway/fix/fix_message_quickfix.h"

#include <quickfix/FieldTypes.h>
#include <quickfix/Fields.h>
#include <quickfix/Group.h>

#include <climits>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace cfx {
namespace gateway {
namespace fix {

const std::string* Message::Find(int tag) const { return FindIn(fields, tag); }

const Group* Message::FindGroup(int count_tag) const {
  for (const Group& group : groups) {
    if (group.count_tag == count_tag) return &group;
  }
  return nullptr;
}

void Message::Add(int tag, const std::string& value) {
  Field field;
  field.tag = tag;
  field.value = value;
  fields.push_back(std::move(field));
}

const std::string* FindIn(const std::vector<Field>& entry, int tag) {
  for (const Field& field : entry) {
    if (field.tag == tag) return &field.value;
  }
  return nullptr;
}

namespace internal {

namespace {

// Client-supplied text in our own log lines is cut to this many characters.
const std::size_t kMaxLoggedText = 32;

// A field value we can put on the wire: non-empty, no SOH.
bool IsSendable(const Field& field, std::string* why) {
  if (field.tag <= 0) {
    *why = "bad tag " + std::to_string(field.tag);
    return false;
  }
  if (field.value.empty() || HasSoh(field.value)) {
    *why = "empty or SOH-carrying value for tag " + std::to_string(field.tag);
    return false;
  }
  if (FIX::Message::isHeaderField(field.tag) ||
      FIX::Message::isTrailerField(field.tag)) {
    *why = "header or trailer tag " + std::to_string(field.tag) + " in body";
    return false;
  }
  return true;
}

bool IsYes(const FIX::FieldMap& map, int tag) {
  return map.isSetField(tag) && map.getField(tag) == "Y";
}

}  // namespace

bool HasSoh(const std::string& text) {
  return text.find('\001') != std::string::npos;
}

// `text` made safe for a log line: printable ASCII, at most kMaxLoggedText
// characters.
std::string Printable(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (out.size() == kMaxLoggedText) {
      out += "...";
      break;
    }
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return out;
}

namespace {

// A tag as QuickFIX's IntConvertor reads it (digits with an optional '-',
// wrapping as it does); 0 for anything else, as extractField then keeps.
int TagOf(const std::string& raw, std::size_t from, std::size_t to) {
  std::size_t at = from;
  const bool negative = at < to && raw[at] == '-';
  if (negative) ++at;
  if (at == to) return 0;
  unsigned x = 0;
  for (; at < to; ++at) {
    const unsigned c = static_cast<unsigned>(raw[at]) - '0';
    if (c > 9) return 0;
    x = 10 * x + c;
  }
  return static_cast<int>(negative ? 0u - x : x);
}

// The length field QuickFIX looks up for data field `tag`.
int LengthTagOf(int tag) {
  return tag == FIX::FIELD::Signature ? FIX::FIELD::SignatureLength : tag - 1;
}

}  // namespace

bool DataFieldsEndAtTheirSoh(const std::string& raw,
                             const FIX::DataDictionary& dictionary,
                             std::string* why) {
  // The lengths given so far: (length tag, value as atol reads it).
  std::vector<std::pair<int, long> > lengths;
  std::size_t pos = 0;
  while (pos < raw.size()) {
    const std::size_t equal = raw.find('=', pos);
    if (equal == std::string::npos) return true;  // QuickFIX refuses it
    const std::size_t value = equal + 1;
    const std::size_t soh = raw.find('\001', value);
    if (soh == std::string::npos) return true;  // QuickFIX refuses it
    const int tag = TagOf(raw, pos, equal);
    if (tag != 0 && dictionary.isDataField(tag)) {
      const int length_tag = LengthTagOf(tag);
      for (const std::pair<int, long>& given : lengths) {
        if (given.first != length_tag) continue;
        if (given.second < 0 ||
            static_cast<unsigned long>(given.second) != soh - value) {
          *why = "data field " + std::to_string(tag) + " is not " +
                 std::to_string(given.second) +
                 " bytes ending at a SOH, as field " +
                 std::to_string(length_tag) + " says";
          return false;
        }
      }
    } else if (tag == FIX::FIELD::SignatureLength ||
               (tag > 0 && tag < INT_MAX &&
                tag + 1 != FIX::FIELD::Signature &&
                dictionary.isDataField(tag + 1))) {
      const std::string text = raw.substr(value, soh - value);
      lengths.push_back(std::make_pair(tag, std::atol(text.c_str())));
    }
    pos = soh + 1;
  }
  return true;
}

bool BuildMessage(const Message& in, FIX::Message* out, std::string* why) {
  if (in.type.empty() || HasSoh(in.type)) {
    *why = "bad MsgType";
    return false;
  }
  out->getHeader().setField(FIX::MsgType(in.type));
  for (const Field& field : in.fields) {
    if (!IsSendable(field, why)) return false;
    out->setField(field.tag, field.value);
  }
  for (const Group& group : in.groups) {
    if (group.count_tag <= 0 || group.delimiter <= 0) {
      *why = "bad group " + std::to_string(group.count_tag);
      return false;
    }
    // The entries' tags in first-seen order, delimiter first, 0-terminated:
    // QuickFIX's group field order.
    std::vector<int> order(1, group.delimiter);
    for (const std::vector<Field>& entry : group.entries) {
      for (const Field& field : entry) {
        bool seen = false;
        for (int tag : order) seen = seen || tag == field.tag;
        if (!seen) order.push_back(field.tag);
      }
    }
    order.push_back(0);
    for (const std::vector<Field>& entry : group.entries) {
      if (entry.empty() || entry.front().tag != group.delimiter) {
        *why = "an entry of group " + std::to_string(group.count_tag) +
               " does not start with its delimiter " +
               std::to_string(group.delimiter);
        return false;
      }
      FIX::Group fix_group(group.count_tag, group.delimiter, order.data());
      for (const Field& field : entry) {
        if (!IsSendable(field, why)) return false;
        fix_group.setField(field.tag, field.value);
      }
      out->addGroup(fix_group);
    }
    if (group.entries.empty()) out->setField(group.count_tag, "0");
  }
  return true;
}

void ToPlain(const FIX::Message& in, const FIX::DataDictionary& dictionary,
             Message* out) {
  const FIX::Header& header = in.getHeader();
  out->type = header.getField(FIX::FIELD::MsgType);
  out->poss_dup = IsYes(header, FIX::FIELD::PossDupFlag) ||
                  IsYes(header, FIX::FIELD::PossResend);
  out->seq_num = 0;
  if (header.isSetField(FIX::FIELD::MsgSeqNum)) {
    // Validated as a SEQNUM by the dictionary; std::atoi cannot throw.
    out->seq_num = std::atoi(header.getField(FIX::FIELD::MsgSeqNum).c_str());
  }
  for (FIX::FieldMap::const_iterator it = in.begin(); it != in.end(); ++it) {
    const int tag = it->getTag();
    int delimiter = 0;
    const FIX::DataDictionary* group_dictionary = nullptr;
    if (!dictionary.getGroup(out->type, tag, delimiter, group_dictionary)) {
      Field field;
      field.tag = tag;
      field.value = it->getString();
      out->fields.push_back(std::move(field));
      continue;
    }
    Group group;
    group.count_tag = tag;
    group.delimiter = delimiter;
    for (FIX::FieldMap::g_const_iterator g = in.g_begin(); g != in.g_end();
         ++g) {
      if (g->first != tag) continue;
      for (const FIX::FieldMap* entry : g->second) {
        std::vector<Field> fields;
        for (FIX::FieldMap::const_iterator f = entry->begin();
             f != entry->end(); ++f) {
          Field field;
          field.tag = f->getTag();
          field.value = f->getString();
          fields.push_back(std::move(field));
        }
        group.entries.push_back(std::move(fields));
      }
    }
    out->groups.push_back(std::move(group));
  }
}

}  // namespace internal
}  // namespace fix
}  // namespace gateway
}  // namespace cfx
