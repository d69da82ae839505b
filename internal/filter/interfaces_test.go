package filter

// Every filter and comparator satisfies its contract.
var (
	_ Filter = (*FilterList)(nil)
	_ Filter = (*PageFilter)(nil)
	_ Filter = (*PrefixFilter)(nil)
	_ Filter = (*RowFilter)(nil)
	_ Filter = (*FamilyFilter)(nil)
	_ Filter = (*QualifierFilter)(nil)
	_ Filter = (*ValueFilter)(nil)
	_ Filter = (*SingleColumnValueFilter)(nil)
	_ Filter = (*SingleColumnValueExcludeFilter)(nil)
	_ Filter = (*KeyOnlyFilter)(nil)
	_ Filter = (*FirstKeyOnlyFilter)(nil)
	_ Filter = (*ColumnPrefixFilter)(nil)
	_ Filter = (*MultipleColumnPrefixFilter)(nil)
	_ Filter = (*ColumnRangeFilter)(nil)
	_ Filter = (*ColumnCountGetFilter)(nil)
	_ Filter = (*ColumnPaginationFilter)(nil)
	_ Filter = (*InclusiveStopFilter)(nil)
	_ Filter = (*TimestampsFilter)(nil)
	_ Filter = (*RandomRowFilter)(nil)
	_ Filter = (*WhileMatchFilter)(nil)
	_ Filter = (*SkipFilter)(nil)

	_ OperandComparator = BinaryComparator{}
	_ OperandComparator = BinaryPrefixComparator{}
	_ OperandComparator = SubstringComparator{}
	_ OperandComparator = (*RegexStringComparator)(nil)
	_ OperandComparator = NullComparator{}
	_ OperandComparator = BitComparator{}
)
