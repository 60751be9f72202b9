using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;
using WebSocketCodec.Testing;

namespace WebSocketCodec.Packaging.Tests.Infrastructure;

/// <summary>
/// Writes the docs' C# blocks (<see cref="DocBlocks"/>) as fresh projects consuming the packed packages: each program
/// block a project of its own (<c>programs/NAME</c>, its marker's sdk and packages), every snippet and file block in
/// one library project (<c>snippets</c>) that references every package and ASP.NET Core.
/// </summary>
internal static partial class DocProjects
{
    /// <summary>Every package the docs may reference, packed by the consumer test.</summary>
    public static readonly string[] Packages =
        ["WebSocketCodec", "WebSocketCodec.Pipelines", "WebSocketCodec.AspNetCore", "WebSocketCodec.Akka", "WebSocketCodec.Akka.Cluster", "WebSocketCodec.Lean"];

    /// <summary>What a snippet may use without a using of its own (a page shows usings only where they teach).</summary>
    private static readonly string[] SnippetNamespaces =
        ["WebSocketCodec", "WebSocketCodec.Pipelines", "WebSocketCodec.AspNetCore", "WebSocketCodec.Lean", "WebSocketCodec.Akka", "WebSocketCodec.Akka.Cluster"];

    /// <summary>The project folder of a program block, relative to the consumer's root.</summary>
    public static string ProgramFolder(string name) => "programs/" + name;

    /// <summary>The built dll of a program block, relative to the consumer's root.</summary>
    public static string ProgramDll(string name) => $"programs/{name}/bin/Release/net10.0/{Assembly(name)}.dll";

    /// <summary>Writes the projects under <paramref name="temp"/>; returns their paths, relative, for a solution.</summary>
    public static IReadOnlyList<string> Write(TempFolder temp, string version)
    {
        var projects = new List<string>();
        foreach (DocBlock block in DocBlocks.All.Where(b => b.Kind == DocBlockKind.Program))
        {
            string sdk = block.Attribute("sdk", "console") switch
            {
                "web" => "Microsoft.NET.Sdk.Web",
                "console" => "Microsoft.NET.Sdk",
                string other => throw new InvalidOperationException($"{block.Where}: sdk={other} (web or console)"),
            };
            string[] packages = block.Attribute("packages").Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
            if (packages.Length == 0)
                throw new InvalidOperationException($"{block.Where}: a program names its packages (packages=...)");
            string path = $"{ProgramFolder(block.Name)}/{Assembly(block.Name)}.csproj";
            temp.Write(path, Project(sdk, "Exe", References(packages, version, block)));
            temp.Write($"{ProgramFolder(block.Name)}/Program.cs", $"// {block.Where}\n" + block.Code);
            projects.Add(path);
        }

        DocBlock[] pieces = DocBlocks.All.Where(b => b.Kind is DocBlockKind.Snippet or DocBlockKind.File).ToArray();
        if (pieces.Length > 0)
        {
            temp.Write("snippets/Snippets.csproj", Project(
                "Microsoft.NET.Sdk.Web", "Library",
                References([.. Packages, "Akka.Cluster.Hosting@" + AkkaClusterHostingVersion], version, null)));
            temp.Write("snippets/GlobalUsings.cs", string.Concat(SnippetNamespaces.Select(ns => $"global using {ns};\n")));
            foreach (DocBlock piece in pieces)
                temp.Write($"snippets/{Assembly(piece.Name)}.cs", piece.Kind == DocBlockKind.File ? $"// {piece.Where}\n" + piece.Code : Snippet(piece));
            projects.Add("snippets/Snippets.csproj");
        }

        return projects;
    }

    /// <summary>The Akka.Cluster.Hosting the repository pins (Directory.Packages.props), for the snippets' project.</summary>
    public static string AkkaClusterHostingVersion => CentralVersion("Akka.Cluster.Hosting")
        ?? throw new InvalidOperationException("Directory.Packages.props pins no Akka.Cluster.Hosting");

    /// <summary>The version Directory.Packages.props pins for a NuGet package, or null when it pins none.</summary>
    public static string? CentralVersion(string id) => CentralVersions.Value.GetValueOrDefault(id);

    private static readonly Lazy<Dictionary<string, string>> CentralVersions = new(() =>
        System.Xml.Linq.XDocument.Load(Path.Combine(DocBlocks.Root, "Directory.Packages.props"))
            .Descendants("PackageVersion")
            .Where(e => e.Attribute("Include") is not null && e.Attribute("Version") is not null)
            .ToDictionary(e => e.Attribute("Include")!.Value, e => e.Attribute("Version")!.Value, StringComparer.OrdinalIgnoreCase));

    private static string Snippet(DocBlock block)
    {
        var usings = new StringBuilder();
        var body = new StringBuilder();
        bool leading = true;
        foreach (string line in block.Code.Split('\n'))
        {
            if (leading && UsingDirective().IsMatch(line))
            {
                usings.Append(line).Append('\n');
                continue;
            }

            leading &= line.Trim().Length == 0;
            body.Append("        ").Append(line).Append('\n');
        }

        return $$"""
            // {{block.Where}}
            {{usings}}
            namespace DocSnippets;

            internal static class {{Assembly(block.Name)}}
            {
                internal static async Task RunAsync({{block.Attribute("given")}})
                {
                    await Task.Yield();
            #line {{block.Line + 1}} "{{block.Page}}"
            {{body}}
            #line default
                }
            }

            """;
    }

    private static string References(IEnumerable<string> packages, string version, DocBlock? block)
    {
        var lines = new StringBuilder();
        foreach (string package in packages)
        {
            int at = package.IndexOf('@', StringComparison.Ordinal);
            string id = at < 0 ? package : package[..at];
            string packageVersion = at < 0 ? version : package[(at + 1)..];
            if (at < 0 && !Packages.Contains(id))
                throw new InvalidOperationException($"{block?.Where}: '{id}' is not one of our packages; a NuGet package is written Id@version");
            if (at >= 0 && CentralVersion(id) is { } pinned && pinned != packageVersion)
                throw new InvalidOperationException($"{block?.Where}: {id}@{packageVersion}, but the repository pins {pinned} (Directory.Packages.props): a reader would copy a version we do not test");
            lines.Append(CultureInfo.InvariantCulture, $"    <PackageReference Include=\"{id}\" Version=\"{packageVersion}\" />\n");
        }

        return lines.ToString();
    }

    /// <summary>What <c>dotnet new web</c> / <c>dotnet new console</c> make, plus the package references.</summary>
    private static string Project(string sdk, string outputType, string references) => $"""
        <Project Sdk="{sdk}">
          <PropertyGroup>
            <OutputType>{outputType}</OutputType>
            <TargetFramework>net10.0</TargetFramework>
            <Nullable>enable</Nullable>
            <ImplicitUsings>enable</ImplicitUsings>
          </PropertyGroup>
          <ItemGroup>
        {references}  </ItemGroup>
        </Project>

        """;

    /// <summary>A block's name as a C# identifier and assembly name: <c>kestrel-echo</c> → <c>Kestrel_echo</c>.</summary>
    private static string Assembly(string name) => "Doc_" + NotIdentifier().Replace(name, "_");

    [GeneratedRegex(@"^using\s+(static\s+)?[\w.]+(\s*=\s*[\w.<>, ]+)?\s*;\s*$")]
    private static partial Regex UsingDirective();

    [GeneratedRegex(@"[^A-Za-z0-9_]")]
    private static partial Regex NotIdentifier();
}
