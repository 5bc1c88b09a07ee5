// SPDX-License-Identifier: GPL-3.0-or-later
// The one check of a FITS selection before cfitsio sees it: nothing in it may make cfitsio read
// another file.
#include "catalog/fits_table.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <string_view>

namespace tpacf::detail {

namespace {

// cfitsio features that read a file other than the catalog: "@file" (an expression or column
// list kept in a file) and the filter functions that take a file name. Such a file would be
// opened by cfitsio with none of the reader's checks (a FIFO blocks forever, /dev/zero never
// ends, any file's first word appears in an error): refused, with what to do instead.
constexpr std::array<std::string_view, 4> kFileReadingFunctions{"regfilter", "gtifilter",
                                                                "gtioverlap", "gtifind"};

} // namespace

void refuseFileReadingSelection(const std::string& path, const std::string& selection) {
    const auto refuse = [&](const std::string& feature) {
        throw InputError(path, 0, 0,
                         "the selection " + quoteField(selection) + " uses " + feature +
                             ", which reads another file; tpacf reads no file named inside a "
                             "selection: write the expression itself in the brackets");
    };
    // Strings are not skipped: cfitsio's column lists and row filters quote differently, and
    // no catalog selection needs '@' or these names inside a string.
    for (std::size_t i = 0; i < selection.size(); ++i) {
        const char c = selection[i];
        if (c == '@')
            refuse("'@' (an expression or column list read from a file)");
        else if (std::isalpha(static_cast<unsigned char>(c)) &&
                 (i == 0 || !(std::isalnum(static_cast<unsigned char>(selection[i - 1])) ||
                              selection[i - 1] == '_'))) {
            std::size_t end = i;
            while (
                end < selection.size() &&
                (std::isalnum(static_cast<unsigned char>(selection[end])) || selection[end] == '_'))
                ++end;
            std::string word = selection.substr(i, end - i);
            std::transform(word.begin(), word.end(), word.begin(),
                           [](unsigned char ch) { return char(std::tolower(ch)); });
            for (const std::string_view function : kFileReadingFunctions)
                if (word == function)
                    refuse(std::string(function) + "()");
            i = end - 1;
        }
    }
}

} // namespace tpacf::detail
