package shell

import (
	"fmt"
	"slices"
	"strings"
)

// Help returns the help text for topic: with "" the command groups and
// their commands; with a group name the usage of each of its commands;
// with a command name its usage.
func Help(topic string) (string, error) {
	var b strings.Builder
	switch {
	case topic == "":
		b.WriteString("Weir shell: HBase shell compatible. Type 'help \"COMMAND\"' (e.g. 'help \"get\"', the quotes are\n")
		b.WriteString("necessary) for help on a specific command, or 'help \"COMMAND_GROUP\"' (e.g. 'help \"ddl\"')\n")
		b.WriteString("for help on a command group.\n\nCOMMAND GROUPS:\n")
		for _, g := range groupOrder {
			fmt.Fprintf(&b, "  Group name: %s\n  Commands: %s\n\n", g, strings.Join(groupCommands(g), ", "))
		}
		b.WriteString("SHELL USAGE:\n")
		b.WriteString("Quote all names in the HBase shell such as table and column names. Commas\n")
		b.WriteString("delimit command parameters. Type <RETURN> after entering a command to run it.\n")
		b.WriteString("Dictionaries of configuration used in the creation and alteration of tables\n")
		b.WriteString("are Ruby Hashes. They look like this:\n\n")
		b.WriteString("  {'key1' => 'value1', 'key2' => 'value2', ...}\n\n")
		b.WriteString("and are opened and closed with curley-braces. Key/values are delimited by the\n")
		b.WriteString("'=>' character combination. Usually keys are predefined constants such as\n")
		b.WriteString("NAME, VERSIONS, COMPRESSION, etc. Constants do not need to be quoted.\n\n")
		b.WriteString("Double-quoted strings understand escapes such as \"\\x00\", \"\\n\" and \"\\u00e9\" and\n")
		b.WriteString("may hold binary data; single-quoted strings are taken as typed.\n")
		return b.String(), nil
	case slices.Contains(groupOrder, topic):
		fmt.Fprintf(&b, "Command group: %s\n", topic)
		for _, name := range groupCommands(topic) {
			fmt.Fprintf(&b, "\nCommand: %s\n%s\n", name, specs[name].Usage)
		}
		return b.String(), nil
	}
	if s := specs[topic]; s != nil {
		return s.Usage + "\n", nil
	}
	return "", fmt.Errorf("no help for '%s': not a command or command group; type help", topic)
}

func groupCommands(g string) []string {
	var names []string
	for _, s := range specOrder {
		if s.Group == g {
			names = append(names, s.Name)
		}
	}
	return names
}
