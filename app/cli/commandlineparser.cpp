// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandlineparser.h"

#include "echoedvalue.h"
#include "numberargument.h"
#include "size_limits.h"
#include "tokenizer.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QStringDecoder>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace attnlab {

namespace {

struct CommandLine {
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};
// Which commands an option belongs to: the window and its headless export,
// the d_k lab, the training lab; a mask of these.
enum Mode : unsigned { Window = 1, Lab = 2, Training = 4, Both = Window | Lab | Training };

struct Spec {
    const char* name;  // without "--"
    bool takesValue;
    unsigned mode;
    bool hidden;
};

constexpr std::uint64_t kMinPictureSide = 100;

constexpr Spec kOptions[] = {
    {"sentence", true, Mode::Window, false},
    {"tokenizer", true, Mode::Window, false},
    {"seed", true, Mode::Both, false},
    {"d-model", true, Mode::Window | Mode::Training, false},
    {"d-k", true, Mode::Window | Mode::Training, false},
    {"d-v", true, Mode::Window, false},
    {"init", true, Mode::Window, false},
    {"scale", true, Mode::Window, false},
    {"causal", false, Mode::Window, false},
    {"mask", true, Mode::Window, false},
    {"no-qk-norm", false, Mode::Window, false},
    {"x", true, Mode::Window, false},
    {"wq", true, Mode::Window, false},
    {"wk", true, Mode::Window, false},
    {"wv", true, Mode::Window, false},
    {"transpose-weights", false, Mode::Window, false},
    {"heads", true, Mode::Window, false},
    {"head-layout", true, Mode::Window, false},
    {"output-projection", false, Mode::Window, false},
    {"mha-state", true, Mode::Window, false},
    {"model", true, Mode::Window, false},
    {"temperature", true, Mode::Window, false},
    {"caption", true, Mode::Window, false},
    {"allow-large-export", false, Mode::Window, false},
    {"head-scores", false, Mode::Window, false},
    {"ablate", true, Mode::Window, false},
    {"ablation", true, Mode::Window, false},
    {"probe", true, Mode::Window, false},
    {"logit-lens", false, Mode::Window, false},
    {"rollout", false, Mode::Window, false},
    {"rope", true, Mode::Window, false},
    {"compare", true, Mode::Window, false},
    {"compare-map", true, Mode::Window, false},
    {"generate", true, Mode::Window, false},
    {"sample", false, Mode::Window, false},
    {"top-k", true, Mode::Window, false},
    {"preset", true, Mode::Window, false},
    {"list-presets", false, Mode::Window, false},
    {"open", true, Mode::Window, false},
    {"save", true, Mode::Window, false},
    {"export-dir", true, Mode::Both, false},
    {"format", true, Mode::Both, false},
    {"size", true, Mode::Window, false},
    {"dk-sweep", false, Mode::Window, false},
    {"flash-tiles", true, Mode::Window, false},
    {"scaling-lab", false, Mode::Both, false},
    {"n-keys", true, Mode::Lab | Mode::Training, false},
    {"samples", true, Mode::Lab, false},
    {"training-lab", false, Mode::Both, false},
    {"steps", true, Mode::Training, false},
    {"optimizer", true, Mode::Training, false},
    {"lr", true, Mode::Training, false},
    {"classes", true, Mode::Training, false},
    {"batch", true, Mode::Training, false},
    {"beta", true, Mode::Training, false},
    {"divisor", true, Mode::Training, false},
    {"help", false, Mode::Both, false},
    {"version", false, Mode::Window, false},
    // The benchmark's: print the time of the first painted result and quit;
    // save the window as a picture then.
    {"exit-after-first-paint", false, Mode::Window, true},
    {"screenshot", true, Mode::Window, true},
    // The engine's kernels (auto: AVX2 and FMA where the processor has them)
    // or Eigen's products (baseline), for comparing the two.
    {"kernel", true, Mode::Both, true},
};

const Spec* findSpec(QStringView name)
{
    for (const Spec& spec : kOptions)
        if (name == QLatin1String(spec.name))
            return &spec;
    return nullptr;
}

// Qt's window options, handed on to QApplication untouched.
const QStringList& qtOptionsWithValue()
{
    static const QStringList names = {
        QStringLiteral("-platform"),        QStringLiteral("-platformpluginpath"),
        QStringLiteral("-platformtheme"),   QStringLiteral("-plugin"),
        QStringLiteral("-qwindowgeometry"), QStringLiteral("-geometry"),
        QStringLiteral("-qwindowtitle"),    QStringLiteral("-title"),
        QStringLiteral("-qwindowicon"),     QStringLiteral("-style"),
        QStringLiteral("-stylesheet"),      QStringLiteral("-session"),
        QStringLiteral("-display"),         QStringLiteral("-qmljsdebugger")};
    return names;
}
const QStringList& qtFlags()
{
    static const QStringList names = {QStringLiteral("-reverse"), QStringLiteral("-nograb"),
                                      QStringLiteral("-dograb"), QStringLiteral("-sync"),
                                      QStringLiteral("-widgetcount")};
    return names;
}

QString quoted(const QString& text)
{
    return echoedValue(text);
}

bool isEnd(const QString& arg)
{
    return arg == QLatin1String("-h") || arg == QLatin1String("--help") || arg == QLatin1String("--version")
           || arg == QLatin1String("--list-presets");
}

}  // namespace

bool CommandLineParser::fail(const QString& message)
{
    error_ = message;
    return false;
}

bool CommandLineParser::parse(int argc, char** argv)
{
    // Arguments are UTF-8 text; a sentence in another encoding is refused
    // with the tokenizer's message, which names the byte.
    QStringList arguments;
    for (int i = 1; i < argc; ++i) {
        QStringDecoder decoder(QStringDecoder::Utf8);
        QString text = decoder(QByteArrayView(argv[i]));
        if (decoder.hasError()) {
            *this = CommandLineParser();
            const std::string_view raw = argv[i];
            const bool sentence =
                (i > 1 && std::strcmp(argv[i - 1], "--sentence") == 0) || raw.substr(0, 11) == "--sentence=";
            const attn::Expected<attn::Tokenization> tokens =
                attn::tokenize(std::string(raw), attn::TokenizerMode::Article);
            if (sentence && !tokens)
                return fail(
                    CommandLine::tr("--sentence: %1").arg(QString::fromStdString(tokens.error().message)));
            return fail(
                CommandLine::tr("argument %1 is not valid UTF-8").arg(quoted(QString::fromUtf8(argv[i]))));
        }
        arguments.append(std::move(text));
    }
    return parse(arguments);
}

bool CommandLineParser::parse(const QStringList& arguments)
{
    *this = CommandLineParser();
    scalingLab_ = arguments.contains(QStringLiteral("--scaling-lab"));
    trainingLab_ = arguments.contains(QStringLiteral("--training-lab"));
    if (scalingLab_ && trainingLab_)
        return fail(CommandLine::tr("--scaling-lab and --training-lab are two commands; give one"));
    const QString lab = labName();
    const auto unknown = [lab](const QString& what) {
        return !lab.isEmpty() ? CommandLine::tr("unknown option %1 for %2 (see attention-lab %2 --help)")
                                    .arg(quoted(what), lab)
                              : CommandLine::tr("unknown option %1; see --help").arg(quoted(what));
    };

    // The rules QCommandLineParser does not know; what passes goes to it.
    QStringList kept{QStringLiteral("attention-lab")};
    for (int i = 0; i < arguments.size(); ++i) {
        const QString& arg = arguments[i];
        if (isEnd(arg)) {
            kept.append(arg);
            break;
        }
        if (arg.startsWith(QLatin1String("--")) && arg.size() > 2) {
            const int equals = int(arg.indexOf(QLatin1Char('=')));
            const QString name = equals < 0 ? arg : arg.left(equals);
            const Spec* spec = findSpec(QStringView(name).mid(2));
            if (!spec && !lab.isEmpty())
                return fail(unknown(name));  // before its value is taken for a file
            if (spec && !spec->takesValue && equals >= 0)
                return fail(CommandLine::tr("%1 takes no value").arg(name));
            kept.append(arg);
            if (spec && spec->takesValue && equals < 0) {
                if (i + 1 >= arguments.size() || arguments[i + 1].startsWith(QLatin1String("--")))
                    return fail(!lab.isEmpty()
                                    ? CommandLine::tr("%1 needs a value").arg(quoted(name))
                                    : CommandLine::tr("%1 needs a value; see --help").arg(quoted(name)));
                kept.append(arguments[++i]);
            }
            continue;
        }
        if (arg.startsWith(QLatin1Char('-'))) {
            const QString name = arg.left(int(arg.indexOf(QLatin1Char('='))));
            if (qtFlags().contains(arg))
                continue;
            if (qtOptionsWithValue().contains(name)) {
                if (!arg.contains(QLatin1Char('=')))
                    ++i;
                continue;
            }
            return fail(unknown(arg));
        }
        if (!lab.isEmpty())
            return fail(unknown(arg));
        kept.append(arg);
    }

    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsCompactedShortOptions);
    for (const Spec& spec : kOptions) {
        QStringList names{QLatin1String(spec.name)};
        if (names.front() == QLatin1String("help"))
            names.prepend(QStringLiteral("h"));
        QCommandLineOption option(names, QString(), spec.takesValue ? QStringLiteral("value") : QString());
        if (spec.hidden)
            option.setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(option);
    }
    if (!parser.parse(kept)) {
        const QStringList unknownNames = parser.unknownOptionNames();
        if (!unknownNames.isEmpty())
            return fail(unknown(QStringLiteral("--") + unknownNames.front()));
        return fail(parser.errorText());
    }

    // The options in the order given, each with its value.
    std::map<QString, int> seen;
    for (const QString& found : parser.optionNames()) {
        const QString name = found == QLatin1String("h") ? QStringLiteral("help") : found;
        const Spec* spec = findSpec(name);
        const QStringList values = parser.values(found);
        const int index = seen[name]++;
        Option option{QStringLiteral("--") + name, QString()};
        if (spec && spec->takesValue && index < values.size())
            option.value = values[index];
        options_.push_back(option);
    }
    positional_ = parser.positionalArguments();
    return checkOptionsOfMode();
}

// Options of the other command are unknown here; the values main() needs
// before choosing the application are checked at once.
bool CommandLineParser::checkOptionsOfMode()
{
    const unsigned mode = scalingLab_ ? Mode::Lab : trainingLab_ ? Mode::Training : Mode::Window;
    const QString lab = labName();
    for (const Option& option : options_) {
        const Spec* spec = findSpec(QStringView(option.name).mid(2));
        if (spec && !(spec->mode & mode))
            return fail(!lab.isEmpty()
                            ? CommandLine::tr("unknown option %1 for %2 (see attention-lab %2 --help)")
                                  .arg(quoted(option.name), lab)
                            : CommandLine::tr("unknown option %1; see --help").arg(quoted(option.name)));
    }
    if (isSet(QStringLiteral("--size"))) {
        // Two whole numbers (numberargument.h) around one 'x', nothing else.
        const QString size = value(QStringLiteral("--size"));
        const QStringList parts = size.split(QLatin1Char('x'));
        const std::string w = parts.value(0).toStdString();
        const std::string h = parts.value(1).toStdString();
        const auto side = [](const std::string& text) {
            return wholeNumber(text, kMinPictureSide, std::uint64_t(attn::kMaxPictureSide));
        };
        const std::optional<std::uint64_t> width = side(w);
        const std::optional<std::uint64_t> height = side(h);
        if (parts.size() != 2 || !width || !height)
            return fail(CommandLine::tr("--size needs WIDTHxHEIGHT in pixels, each %1 to %2 (e.g. "
                                        "1600x900), not %3")
                            .arg(QString::number(kMinPictureSide), QString::number(attn::kMaxPictureSide),
                                 quoted(size)));
        pictureSize_ = QSize(int(*width), int(*height));
    }
    if (isSet(QStringLiteral("--kernel"))) {
        const QString kernel = value(QStringLiteral("--kernel"));
        if (kernel == QLatin1String("auto"))
            kernel_ = Kernel::Auto;
        else if (kernel == QLatin1String("baseline"))
            kernel_ = Kernel::Baseline;
        else
            return fail(CommandLine::tr("--kernel must be auto or baseline, not %1").arg(quoted(kernel)));
    }
    return true;
}

QString CommandLineParser::labName() const
{
    return scalingLab_    ? QStringLiteral("--scaling-lab")
           : trainingLab_ ? QStringLiteral("--training-lab")
                          : QString();
}

bool CommandLineParser::isSet(const QString& name) const
{
    return std::any_of(options_.begin(), options_.end(), [&name](const Option& o) { return o.name == name; });
}

QString CommandLineParser::repeatedOptionError() const
{
    std::map<QString, const Option*> first;
    for (const Option& option : options_) {
        const Spec* spec = findSpec(QStringView(option.name).mid(2));
        if (!spec || !spec->takesValue)
            continue;
        const auto [it, isNew] = first.emplace(option.name, &option);
        if (!isNew)
            return CommandLine::tr("%1 is given twice (%2 and %3); give it once")
                .arg(option.name, quoted(it->second->value), quoted(option.value));
    }
    return QString();
}

QString CommandLineParser::value(const QString& name) const
{
    for (auto it = options_.rbegin(); it != options_.rend(); ++it)
        if (it->name == name)
            return it->value;
    return QString();
}

bool CommandLineParser::isHeadless() const
{
    return !helpAsked() && !versionAsked() && !listPresetsAsked()
           && (isSet(QStringLiteral("--export-dir")) || isSet(QStringLiteral("--save")));
}

bool CommandLineParser::asksForPictures() const
{
    for (const Option& option : options_)
        if (option.name == QLatin1String("--format"))
            for (const char* name : {"png", "svg", "pdf"})
                if (option.value.contains(QLatin1String(name)))
                    return true;
    return false;
}

}  // namespace attnlab
