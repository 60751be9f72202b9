using System.Text.RegularExpressions;

namespace WebSocketCodec.Testing;

/// <summary>What a marker line says about the fenced block after it (docs/AUTHORING.md).</summary>
public enum DocBlockKind
{
    /// <summary>A whole Program.cs, a project of its own.</summary>
    Program,
    /// <summary>Statements: the body of an async method taking the <c>given</c> parameters.</summary>
    Snippet,
    /// <summary>A whole C# file of types.</summary>
    File,
    /// <summary>A C# block that cannot compile here; the marker says why.</summary>
    NotCompiled,
    /// <summary>A program's output, checked by the test that produces it.</summary>
    Output,
}

/// <summary>One fenced block of the docs and its marker.</summary>
public sealed record DocBlock(
    DocBlockKind Kind, string Name, IReadOnlyDictionary<string, string> Attributes, string Code, string Page, int Line)
{
    /// <summary>Where the block is, for messages: the page relative to the repository and the fence's line.</summary>
    public string Where => $"{Page}:{Line}";

    /// <summary>An attribute's value, or <paramref name="fallback"/> when the marker does not give it.</summary>
    public string Attribute(string key, string fallback = "") => Attributes.TryGetValue(key, out string? value) ? value : fallback;
}

/// <summary>
/// The code and output blocks of every page a user reads: README.md, docs/ (but docs/AUTHORING.md, the generated API
/// pages and the built site) and each package's README (src/*/README.md). A block is the fenced block right after a
/// marker line <c>&lt;!-- KIND: NAME key=value key="a value" --&gt;</c> (KIND: program, snippet, file, output) or
/// <c>&lt;!-- not-compiled: REASON --&gt;</c>. A C# fence with no marker before it is listed in <see cref="Unmarked"/>.
/// </summary>
public static partial class DocBlocks
{
    private static readonly Lazy<(IReadOnlyList<DocBlock> Blocks, IReadOnlyList<string> Unmarked)> Parsed = new(Parse);

    /// <summary>The folder holding WebSocketCodec.sln, found upwards from the test assembly.</summary>
    public static string Root { get; } = FindRoot();

    /// <summary>Every marked block, in page order.</summary>
    public static IReadOnlyList<DocBlock> All => Parsed.Value.Blocks;

    /// <summary>C# fences with no marker before them, as <c>page:line</c>.</summary>
    public static IReadOnlyList<string> Unmarked => Parsed.Value.Unmarked;

    /// <summary>The pages searched, relative to the repository, with '/' separators.</summary>
    public static IReadOnlyList<string> Pages()
    {
        var pages = new List<string> { "README.md" };
        string docs = Path.Combine(Root, "docs");
        pages.AddRange(Directory.EnumerateFiles(docs, "*.md", SearchOption.AllDirectories)
            .Select(path => Path.GetRelativePath(Root, path).Replace('\\', '/'))
            .Where(path => !path.StartsWith("docs/_site/", StringComparison.Ordinal)
                && !path.StartsWith("docs/api/", StringComparison.Ordinal)
                && !path.StartsWith("docs/obj/", StringComparison.Ordinal)
                && path != "docs/AUTHORING.md")
            .Order(StringComparer.Ordinal));
        pages.AddRange(Directory.EnumerateDirectories(Path.Combine(Root, "src"))
            .Select(folder => Path.Combine(folder, "README.md"))
            .Where(System.IO.File.Exists)
            .Select(path => Path.GetRelativePath(Root, path).Replace('\\', '/'))
            .Order(StringComparer.Ordinal));
        return pages;
    }

    /// <summary>The block of that kind and name; throws, naming what exists, when there is none.</summary>
    public static DocBlock Get(DocBlockKind kind, string name)
    {
        DocBlock? block = All.FirstOrDefault(b => b.Kind == kind && b.Name == name);
        return block ?? throw new InvalidOperationException(
            $"no '{kind.ToString().ToLowerInvariant()}: {name}' block in the docs; there are: "
            + string.Join(", ", All.Where(b => b.Kind == kind).Select(b => b.Name)));
    }

    /// <summary>
    /// Checks that the output block <paramref name="name"/> shows what a program printed: each of its lines, in order,
    /// is one of <paramref name="printed"/>'s lines, where each run of digits may be any digits and an annotation
    /// (two spaces or more, then <c>&lt;-</c>, to the end of the line) is not part of the line. Returns null when it
    /// does, or the first line it could not find.
    /// </summary>
    public static string? OutputMismatch(string name, IEnumerable<string> printed)
    {
        ArgumentNullException.ThrowIfNull(printed);
        DocBlock block = Get(DocBlockKind.Output, name);
        List<string> lines = printed.Select(line => line.TrimEnd()).ToList();
        int next = 0;
        foreach (string shown in block.Code.Split('\n'))
        {
            string line = Annotation().Replace(shown, "").TrimEnd();
            if (line.Length == 0)
                continue;
            var pattern = new Regex("^" + Digits().Replace(Regex.Escape(line), @"\d+") + "$", RegexOptions.CultureInvariant);
            int found = lines.FindIndex(next, l => pattern.IsMatch(l));
            if (found < 0)
                return $"{block.Where}: '{line}' was not printed (after line {next} of the output):\n" + string.Join('\n', lines);
            next = found + 1;
        }

        return null;
    }

    private static (IReadOnlyList<DocBlock>, IReadOnlyList<string>) Parse()
    {
        var blocks = new List<DocBlock>();
        var unmarked = new List<string>();
        foreach (string page in Pages())
        {
            string[] lines = System.IO.File.ReadAllLines(Path.Combine(Root, page));
            for (int i = 0; i < lines.Length; i++)
            {
                Match fence = Fence().Match(lines[i]);
                if (!fence.Success)
                    continue;
                int end = Array.FindIndex(lines, i + 1, l => l.Trim() == fence.Groups["ticks"].Value);
                if (end < 0)
                    throw new InvalidOperationException($"{page}:{i + 1}: a fence that never closes");
                int before = i - 1;
                while (before >= 0 && lines[before].Trim().Length == 0)
                    before--;
                Match marker = before >= 0 ? Marker().Match(lines[before].Trim()) : Match.Empty;
                string language = fence.Groups["lang"].Value.ToLowerInvariant();
                if (marker.Success)
                    blocks.Add(Block(marker, string.Join('\n', lines[(i + 1)..end]) + "\n", page, i + 1));
                else if (language is "csharp" or "cs" or "c#")
                    unmarked.Add($"{page}:{i + 1}");
                i = end;
            }
        }

        return (blocks, unmarked);
    }

    private static DocBlock Block(Match marker, string code, string page, int line)
    {
        string kind = marker.Groups["kind"].Value;
        string rest = marker.Groups["rest"].Value.Trim();
        if (kind == "not-compiled")
            return new DocBlock(DocBlockKind.NotCompiled, "", new Dictionary<string, string> { ["reason"] = rest }, code, page, line);
        int space = rest.IndexOf(' ', StringComparison.Ordinal);
        string name = space < 0 ? rest : rest[..space];
        var attributes = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (Match attribute in Attribute().Matches(space < 0 ? "" : rest[space..]))
            attributes[attribute.Groups["key"].Value] = attribute.Groups["quoted"].Success ? attribute.Groups["quoted"].Value : attribute.Groups["plain"].Value;
        DocBlockKind parsed = kind switch
        {
            "program" => DocBlockKind.Program,
            "snippet" => DocBlockKind.Snippet,
            "file" => DocBlockKind.File,
            _ => DocBlockKind.Output,
        };
        return new DocBlock(parsed, name, attributes, code, page, line);
    }

    private static string FindRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (System.IO.File.Exists(Path.Combine(dir.FullName, "WebSocketCodec.sln")))
                return dir.FullName;
        }

        throw new InvalidOperationException("WebSocketCodec.sln not found above " + AppContext.BaseDirectory);
    }

    [GeneratedRegex(@"^(?<ticks>```+)\s*(?<lang>[^\s`]*)")]
    private static partial Regex Fence();

    [GeneratedRegex(@"^<!--\s*(?<kind>program|snippet|file|output|not-compiled):\s*(?<rest>.*?)\s*-->$")]
    private static partial Regex Marker();

    [GeneratedRegex(@"(?<key>[a-z]+)=(?:""(?<quoted>[^""]*)""|(?<plain>\S+))")]
    private static partial Regex Attribute();

    [GeneratedRegex(@"\s{2,}<-.*$")]
    private static partial Regex Annotation();

    [GeneratedRegex(@"\d+")]
    private static partial Regex Digits();
}
